// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Shashin
import Testing

@Suite("Processors: rounded corners")
struct ProcessorRoundedCornersTests {
    let source = TestImages.gradient(width: 100, height: 80)

    @Test func cornersAreTransparentAndEverythingAwayFromThemIsUnchanged() throws {
        let image = try ImageProcessors.RoundedCorners(radius: 20).process(source)
        #expect((image.width, image.height) == (100, 80))
        for (x, y) in [(0, 0), (99, 0), (0, 79), (99, 79), (3, 3), (96, 76)] {
            #expect(image.pixel(x: x, y: y).a == 0, "corner pixel (\(x), \(y)) is \(image.rgba(x, y))")
        }
        for y in 0..<80 {
            for x in 0..<100 where (x >= 20 && x < 80) || (y >= 20 && y < 60) {
                guard image.rgba(x, y) == source.rgba(x, y) else {
                    Issue.record("pixel (\(x), \(y)) changed to \(image.rgba(x, y)) from \(source.rgba(x, y))")
                    return
                }
            }
        }
    }

    @Test func theCurveIsAntialiased() throws {
        let image = try ImageProcessors.RoundedCorners(radius: 20).process(source)
        // Along the diagonal into the top-left corner, alpha rises from 0 to 255 without steps
        // backwards, through at least one value between.
        let diagonal = (0..<20).map { image.pixel(x: $0, y: $0).a }
        #expect(diagonal.first == 0 && diagonal.last == 255)
        #expect(ProcessorImages.isNonDecreasing(diagonal), "\(diagonal)")
        let row = ProcessorImages.alphaRow(image, y: 2)
        #expect(row.contains { $0 > 0 && $0 < 255 }, "\(row.prefix(20))")
        // Partly covered pixels keep their colour (alpha is straight, not premultiplied).
        let edge = (0..<20).first { image.pixel(x: $0, y: 2).a > 0 && image.pixel(x: $0, y: 2).a < 255 }!
        #expect(Array(image.rgba(edge, 2).prefix(3)) == Array(source.rgba(edge, 2).prefix(3)))
    }

    @Test func aBorderIsPaintedAlongTheEdge() throws {
        let green = ProcessorImages.solid(width: 100, height: 80, (0, 200, 0, 255))
        let border = ImageProcessors.Border(width: 4, color: .init(red: 255, green: 0, blue: 0))
        let image = try ImageProcessors.RoundedCorners(radius: 20, border: border).process(green)
        for (x, y) in [(50, 0), (50, 3), (0, 40), (99, 40), (50, 79)] {
            #expect(image.rgba(x, y) == [255, 0, 0, 255], "edge pixel (\(x), \(y)) is \(image.rgba(x, y))")
        }
        for (x, y) in [(50, 4), (4, 40), (50, 40), (20, 20)] {
            #expect(image.rgba(x, y) == [0, 200, 0, 255], "inside pixel (\(x), \(y)) is \(image.rgba(x, y))")
        }
        #expect(image.pixel(x: 0, y: 0).a == 0)
        // Around the curve too: pixel (7, 7) has its centre 17.7 px from the arc's centre at
        // (20, 20), inside the ring between radius 16 and 20.
        #expect(image.rgba(7, 7) == [255, 0, 0, 255], "(7, 7) is \(image.rgba(7, 7))")
    }

    @Test func aTranslucentBorderShowsTheImageThrough() throws {
        let green = ProcessorImages.solid(width: 40, height: 40, (0, 200, 0, 255))
        let border = ImageProcessors.Border(width: 3, color: .init(red: 255, green: 0, blue: 0, alpha: 128))
        let image = try ImageProcessors.RoundedCorners(radius: 0, border: border).process(green)
        let p = image.pixel(x: 20, y: 1)
        #expect(p.a == 255 && p.r >= 126 && p.r <= 130 && p.g >= 97 && p.g <= 101, "\(image.rgba(20, 1))")
        #expect(image.rgba(0, 0) == image.rgba(20, 1), "square corners with radius 0")
    }

    @Test func aRadiusOverHalfTheShorterSideMakesACapsule() throws {
        let image = try ImageProcessors.RoundedCorners(radius: 1_000).process(source)
        // The middle of each end is (all but) fully covered: its centre is 0.497 px inside the arc.
        #expect(image.pixel(x: 0, y: 0).a == 0 && image.pixel(x: 0, y: 40).a >= 253 && image.pixel(x: 50, y: 0).a == 255)
        #expect(image.pixel(x: 0, y: 10).a == 0) // the ends are half circles of radius 40
    }

    @Test func tinyEmptyAndZeroRadiusImagesDoNotFail() throws {
        #expect(try ImageProcessors.RoundedCorners(radius: 0).process(source) == source)
        let empty = Bitmap(width: 0, height: 0, pixels: [])
        #expect(try ImageProcessors.RoundedCorners(radius: 12).process(empty) == empty)
        let dot = ProcessorImages.solid(width: 1, height: 1, (9, 9, 9, 255))
        let rounded = try ImageProcessors.RoundedCorners(radius: 12, border: .init(width: 5)).process(dot)
        #expect((rounded.width, rounded.height) == (1, 1))
        let line = try ImageProcessors.RoundedCorners(radius: 12).process(ProcessorImages.solid(width: 50, height: 1, (9, 9, 9, 255)))
        #expect((line.width, line.height) == (50, 1))
    }

    @Test func aNegativeOrNonFiniteRadiusFailsWithProcessingFailed() {
        for processor in [ImageProcessors.RoundedCorners(radius: -1), .init(radius: .nan), .init(radius: 4, border: .init(width: -2)),
                          .init(radius: .infinity)] {
            let error = #expect(throws: ImagePipelineError.self) { try processor.process(source) }
            guard case .processingFailed(let identifier, _)? = error else {
                Issue.record("\(processor.identifier): \(String(describing: error))")
                continue
            }
            #expect(identifier == processor.identifier)
        }
    }
}

@Suite("Processors: circle")
struct ProcessorCircleTests {
    let source = TestImages.gradient(width: 100, height: 60)

    @Test func theLargestCentredCircleInASquare() throws {
        let image = try ImageProcessors.Circle().process(source)
        #expect((image.width, image.height) == (60, 60))
        for (x, y) in [(0, 0), (59, 0), (0, 59), (59, 59), (7, 7)] {
            #expect(image.pixel(x: x, y: y).a == 0, "corner pixel (\(x), \(y)) is \(image.rgba(x, y))")
        }
        #expect(image.rgba(30, 30) == source.rgba(50, 30), "the centre is the source's centre")
        // Where the circle touches the square's sides, the pixel is the source's, (all but) opaque.
        for (x, y, sourceX) in [(0, 30, 20), (30, 0, 50), (59, 30, 79)] {
            #expect(image.rgba(x, y).prefix(3) == source.rgba(sourceX, y).prefix(3) && image.pixel(x: x, y: y).a >= 253,
                    "(\(x), \(y)) is \(image.rgba(x, y)), source \(source.rgba(sourceX, y))")
        }
        // Coverage adds up to the circle's area, π r², within a fraction of a percent.
        let coverage = stride(from: 3, to: image.pixels.count, by: 4).reduce(0) { $0 + Double(image.pixels[$1]) } / 255
        #expect(abs(coverage - Double.pi * 900) < 900 * 0.01, "coverage \(coverage)")
    }

    @Test func aBorderFollowsTheCircle() throws {
        let grey = ProcessorImages.solid(width: 60, height: 60, (128, 128, 128, 255))
        let image = try ImageProcessors.Circle(border: .init(width: 3, color: .init(red: 0, green: 0, blue: 255))).process(grey)
        for (x, y) in [(30, 1), (1, 30), (58, 30), (30, 58)] {
            #expect(image.rgba(x, y) == [0, 0, 255, 255], "edge pixel (\(x), \(y)) is \(image.rgba(x, y))")
        }
        #expect(image.rgba(30, 30) == [128, 128, 128, 255])
        #expect(image.pixel(x: 0, y: 0).a == 0)
    }

    @Test func tallAndTinyImages() throws {
        let tall = try ImageProcessors.Circle().process(TestImages.gradient(width: 7, height: 300))
        #expect((tall.width, tall.height) == (7, 7))
        let dot = try ImageProcessors.Circle().process(ProcessorImages.solid(width: 1, height: 1, (1, 2, 3, 255)))
        #expect((dot.width, dot.height) == (1, 1))
        let empty = Bitmap(width: 0, height: 5, pixels: [])
        #expect(try ImageProcessors.Circle().process(empty) == empty)
    }
}
#endif
