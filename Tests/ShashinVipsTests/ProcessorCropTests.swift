// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import Shashin
import Testing

@Suite("Processors: crop")
struct ProcessorCropTests {
    let source = TestImages.gradient(width: 64, height: 48, alpha: true)

    @Test func theCropIsExactlyTheSourceRegion() throws {
        let image = try ImageProcessors.Crop(x: 10, y: 5, width: 20, height: 30).process(source)
        #expect((image.width, image.height) == (20, 30))
        for y in 0..<30 {
            for x in 0..<20 where image.rgba(x, y) != source.rgba(x + 10, y + 5) {
                Issue.record("pixel (\(x), \(y)) is \(image.rgba(x, y)), not \(source.rgba(x + 10, y + 5))")
                return
            }
        }
    }

    @Test func thePartOutsideTheImageIsDropped() throws {
        let image = try ImageProcessors.Crop(x: 50, y: -10, width: 100, height: 30).process(source)
        #expect((image.width, image.height) == (14, 20))
        #expect(image.rgba(0, 0) == source.rgba(50, 0))
        #expect(try ImageProcessors.Crop(x: -5, y: -5, width: 1000, height: 1000).process(source) == source)
    }

    @Test func aRectangleOutsideTheImageFailsWithProcessingFailed() {
        let cases: [(ImageProcessors.Crop, Bitmap)] = [
            (.init(x: 64, y: 0, width: 10, height: 10), source),
            (.init(x: 0, y: 0, width: 0, height: 10), source),
            (.init(x: 0, y: 0, width: 1, height: 1), Bitmap(width: 0, height: 0, pixels: [])),
            (.init(x: .max, y: .max, width: .max, height: .max), source),
            (.init(rect: CGRect(x: CGFloat.nan, y: 0, width: 5, height: 5)), source),
        ]
        for (processor, image) in cases {
            let error = #expect(throws: ImagePipelineError.self) { try processor.process(image) }
            guard case .processingFailed(let identifier, _)? = error else {
                Issue.record("\(processor.identifier): \(String(describing: error))")
                continue
            }
            #expect(identifier == processor.identifier)
        }
    }

    @Test func aRectangleInFractionalPixelsWidensToWholePixels() {
        let crop = ImageProcessors.Crop(rect: CGRect(x: 1.5, y: 2.2, width: 3, height: 4))
        #expect(crop == ImageProcessors.Crop(x: 1, y: 2, width: 4, height: 5))
    }
}
#endif
