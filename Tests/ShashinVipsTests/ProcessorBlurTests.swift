// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Shashin
import Testing

@Suite("Processors: Gaussian blur")
struct ProcessorBlurTests {
    let edge = ProcessorImages.halves(width: 64, height: 8, left: (0, 0, 0, 255), right: (255, 255, 255, 255))

    @Test func aSharpEdgeBecomesAMonotonicRamp() throws {
        let image = try ImageProcessors.GaussianBlur(radius: 2).process(edge)
        #expect((image.width, image.height) == (64, 8))
        let row = ProcessorImages.redRow(image, y: 4)
        #expect(ProcessorImages.isNonDecreasing(row), "\(row)")
        #expect(row.first == 0 && row.last == 255, "far from the edge nothing changes: \(row)")
        #expect(ProcessorImages.steepestStep(row) < 128, "\(row)")
        #expect(row.filter { $0 > 0 && $0 < 255 }.count >= 4, "\(row)")
        #expect(ProcessorImages.alphaRow(image, y: 4).allSatisfy { $0 == 255 }, "an opaque image stays opaque")
    }

    @Test func aLargerRadiusIsSmoother() throws {
        let rows = try [1.0, 2, 4, 8].map { try ProcessorImages.redRow(ImageProcessors.GaussianBlur(radius: $0).process(edge), y: 4) }
        let steps = rows.map(ProcessorImages.steepestStep)
        let ramps = rows.map { $0.filter { $0 > 0 && $0 < 255 }.count }
        #expect(steps == steps.sorted(by: >) && Set(steps).count == steps.count, "steepest steps \(steps)")
        #expect(ramps == ramps.sorted() && Set(ramps).count == ramps.count, "ramp widths \(ramps)")
    }

    @Test func transparentPixelsDoNotBleedTheirColour() throws {
        let image = ProcessorImages.halves(width: 64, height: 8, left: (255, 0, 0, 255), right: (0, 255, 0, 0))
        let blurred = try ImageProcessors.GaussianBlur(radius: 3).process(image)
        let alpha = ProcessorImages.alphaRow(blurred, y: 4)
        #expect(ProcessorImages.isNonIncreasing(alpha) && alpha.contains { $0 > 0 && $0 < 255 }, "\(alpha)")
        for x in 0..<64 where blurred.pixel(x: x, y: 4).a > 0 {
            let p = blurred.pixel(x: x, y: 4)
            #expect(p.r >= 253 && p.g <= 2, "pixel (\(x), 4) is \(blurred.rgba(x, 4))")
        }
    }

    @Test func aFlatImageStaysFlat() throws {
        for colour in [(200, 100, 50, 255), (200, 100, 50, 100)] as [ProcessorImages.RGBA] {
            let flat = ProcessorImages.solid(width: 20, height: 20, colour)
            let blurred = try ImageProcessors.GaussianBlur(radius: 3).process(flat)
            #expect(blurred == flat, "\(colour) became \(Set(stride(from: 0, to: blurred.pixels.count, by: 4).map { blurred.pixels[$0..<$0 + 4] }))")
        }
    }

    @Test func zeroTinyEmptyAndHugeRadiiDoNotFail() throws {
        #expect(try ImageProcessors.GaussianBlur(radius: 0).process(edge) == edge)
        let empty = Bitmap(width: 0, height: 0, pixels: [])
        #expect(try ImageProcessors.GaussianBlur(radius: 4).process(empty) == empty)
        let dot = ProcessorImages.solid(width: 1, height: 1, (7, 8, 9, 255))
        #expect(try ImageProcessors.GaussianBlur(radius: 4).process(dot) == dot)
        let huge = try ImageProcessors.GaussianBlur(radius: 1e9).process(edge) // capped at the longer side
        #expect((huge.width, huge.height) == (64, 8))
        #expect(ProcessorImages.steepestStep(ProcessorImages.redRow(huge, y: 4)) < 16)
    }

    @Test func aNegativeOrNonFiniteRadiusFailsWithProcessingFailed() {
        for processor in [ImageProcessors.GaussianBlur(radius: -1), .init(radius: .nan), .init(radius: .infinity)] {
            let error = #expect(throws: ImagePipelineError.self) { try processor.process(edge) }
            guard case .processingFailed(let identifier, _)? = error else {
                Issue.record("\(processor.identifier): \(String(describing: error))")
                continue
            }
            #expect(identifier == processor.identifier)
        }
    }
}
#endif
