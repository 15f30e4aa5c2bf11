// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import Shashin
import Testing

@Suite("Processors: resize")
struct ProcessorResizeTests {
    let wide = TestImages.gradient(width: 400, height: 200)

    @Test func aspectFitLandsInsideTheBoxKeepingTheAspectRatio() throws {
        let image = try ImageProcessors.Resize(width: 100, height: 100, contentMode: .aspectFit).process(wide)
        #expect((image.width, image.height) == (100, 50))
    }

    @Test func aspectFillCoversTheBoxKeepingTheAspectRatio() throws {
        let image = try ImageProcessors.Resize(width: 100, height: 100, contentMode: .aspectFill).process(wide)
        #expect((image.width, image.height) == (200, 100))
    }

    @Test func oneSideGivenSetsThatSideAndKeepsTheAspectRatio() throws {
        let byWidth = try ImageProcessors.Resize(width: 100).process(wide)
        #expect((byWidth.width, byWidth.height) == (100, 50))
        let byHeight = try ImageProcessors.Resize(height: 30).process(wide)
        #expect((byHeight.width, byHeight.height) == (60, 30))
    }

    @Test func fillWithCropIsExactlyTheSizeAndKeepsTheCentre() throws {
        // Red | green (the middle half) | blue: a centred square crop of the 2:1 image sees
        // only green.
        let stripes = ProcessorImages.draw(width: 400, height: 200) { x, _ in
            x < 100 ? (255, 0, 0, 255) : x < 300 ? (0, 255, 0, 255) : (0, 0, 255, 255)
        }
        let image = try ImageProcessors.Resize(width: 80, height: 80, crop: true).process(stripes)
        #expect((image.width, image.height) == (80, 80))
        for (x, y) in [(0, 0), (79, 0), (0, 79), (79, 79), (40, 40)] {
            let p = image.pixel(x: x, y: y)
            #expect(p.r <= 2 && p.g >= 253 && p.b <= 2, "pixel (\(x), \(y)) is \(image.rgba(x, y))")
        }
        let exact = try ImageProcessors.Resize(width: 123, height: 45, crop: true).process(wide)
        #expect((exact.width, exact.height) == (123, 45))
    }

    @Test func smallImagesAreNotScaledUpUnlessAsked() throws {
        let small = TestImages.gradient(width: 50, height: 40)
        #expect(try ImageProcessors.Resize(width: 100).process(small) == small)
        #expect(try ImageProcessors.Resize(width: 100, height: 100, contentMode: .aspectFit).process(small) == small)
        let up = try ImageProcessors.Resize(width: 100, upscale: true).process(small)
        #expect((up.width, up.height) == (100, 80))
    }

    @Test func fillWithCropOfASmallerImageCropsWithoutScalingUp() throws {
        let tall = TestImages.gradient(width: 100, height: 400)
        let image = try ImageProcessors.Resize(width: 200, height: 200, crop: true).process(tall)
        #expect((image.width, image.height) == (100, 200))
        #expect(image.rgba(0, 0) == tall.rgba(0, 100)) // the middle of the tall image, unscaled
        let upscaled = try ImageProcessors.Resize(width: 200, height: 200, crop: true, upscale: true).process(tall)
        #expect((upscaled.width, upscaled.height) == (200, 200))
    }

    @Test func anImageAlreadyAtTheSizeIsReturnedAsItIs() throws {
        #expect(try ImageProcessors.Resize(width: 400, height: 200).process(wide) == wide)
        #expect(try ImageProcessors.Resize(width: 400).process(wide) == wide)
    }

    @Test func aFlatColourStaysExactlyThatColour() throws {
        let flat = ProcessorImages.solid(width: 64, height: 64, (200, 100, 50, 255))
        for processor in [ImageProcessors.Resize(width: 17, height: 9, crop: true), .init(width: 5), .init(width: 150, upscale: true)] {
            let image = try processor.process(flat)
            #expect(Set(stride(from: 0, to: image.pixels.count, by: 4).map { image.pixels[$0..<$0 + 4] }) == [[200, 100, 50, 255]],
                    "\(processor.identifier)")
        }
    }

    @Test func transparentPixelsDoNotBleedTheirColour() throws {
        // Opaque red beside fully transparent *green*: the green must never show, even in the
        // half-transparent pixels where the two are averaged.
        let image = ProcessorImages.halves(width: 64, height: 8, left: (255, 0, 0, 255), right: (0, 255, 0, 0))
        let small = try ImageProcessors.Resize(width: 13).process(image)
        var partial = 0
        for y in 0..<small.height {
            for x in 0..<small.width where small.pixel(x: x, y: y).a > 0 {
                let p = small.pixel(x: x, y: y)
                if p.a < 255 { partial += 1 }
                #expect(p.g <= 2 && p.r >= 250, "pixel (\(x), \(y)) is \(small.rgba(x, y))")
            }
        }
        #expect(partial > 0, "the edge should be averaged into partly transparent pixels")
    }

    @Test func onePixelScalesUpToOneColour() throws {
        let dot = ProcessorImages.solid(width: 1, height: 1, (10, 20, 30, 255))
        let image = try ImageProcessors.Resize(width: 300, height: 200, crop: true, upscale: true).process(dot)
        #expect((image.width, image.height) == (300, 200))
        #expect(image.rgba(0, 0) == [10, 20, 30, 255] && image.rgba(299, 199) == [10, 20, 30, 255])
        let down = try ImageProcessors.Resize(width: 1).process(TestImages.gradient(width: 7, height: 3))
        #expect((down.width, down.height) == (1, 1))
    }

    @Test func impossibleSizesFailWithProcessingFailed() throws {
        let empty = Bitmap(width: 0, height: 0, pixels: [])
        let cases: [(ImageProcessors.Resize, Bitmap)] = [
            (.init(width: 10), empty),
            (.init(width: 0), wide),
            (.init(width: 10, height: -1), wide),
            (.init(width: 100_000, height: 100_000, upscale: true), wide), // 10^10 pixels
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

    @Test func aSizeInPointsTimesTheScaleIsTheSizeInPixels() {
        let points = ImageProcessors.Resize(size: CGSize(width: 150, height: 100), scale: 2, contentMode: .aspectFit)
        let pixels = ImageProcessors.Resize(width: 300, height: 200, unit: .pixels, contentMode: .aspectFit)
        #expect(points.width == pixels.width && points.height == pixels.height && points.scale == 2 && pixels.scale == nil)
        #expect(ImageProcessors.Resize(size: CGSize(width: 64, height: CGFloat.infinity)) == ImageProcessors.Resize(width: 64))
    }

    /// Points at scales 1, 2 and 3, fitted and filled, on a real image: the result has the
    /// points times the scale in pixels (on Linux, where there is no screen, the scale given).
    @Test(arguments: [1.0, 2.0, 3.0], ImageContentMode.allCases)
    func pointsAtEachScaleGiveThePointsTimesTheScale(scale: Double, mode: ImageContentMode) throws {
        let wide = TestImages.gradient(width: 400, height: 200)
        let resized = try ImageProcessors.Resize(size: CGSize(width: 50, height: 50), scale: scale, contentMode: mode).process(wide)
        let side = Int(50 * scale)
        if mode == .aspectFit {
            #expect((resized.width, resized.height) == (side, side / 2))
        } else {
            #expect((resized.width, resized.height) == (side * 2, side))
        }
        let cropped = try ImageProcessors.Resize(size: CGSize(width: 50, height: 50), scale: scale, contentMode: mode, crop: true).process(wide)
        #expect((cropped.width, cropped.height) == (mode == .aspectFill ? (side, side) : (side, side / 2)))
    }

    /// Rounded corners in points are the image's own points: on Linux (scale 1) pixels, and a
    /// radius in pixels reads the same.
    @Test func roundedCornersInPointsArePixelsAtScaleOne() throws {
        let image = TestImages.gradient(width: 40, height: 40)
        #expect(try ImageProcessors.RoundedCorners(radius: 8).process(image) == ImageProcessors.RoundedCorners(radius: 8, unit: .pixels).process(image))
    }
}
#endif
