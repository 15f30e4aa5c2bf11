import Foundation
import Testing
@testable import ShashinCore

/// Thumbnails asked for as a box in points at a scale, fitted or filled: the pixel sizes they
/// give, on Linux as on Apple platforms (the decoders all size by `targetSize`).
@Suite("Thumbnail sizes in points, pixels and scale")
struct ThumbnailSizeTests {
    @Test func aBoxInPointsIsItsSidesTimesTheScaleRoundedUp() {
        let options = ThumbnailOptions(size: CGSize(width: 100, height: 80.1), unit: .points, scale: 3, contentMode: .aspectFit)
        #expect(options.box == ThumbnailOptions.Box(width: 300, height: 241, contentMode: .aspectFit))
        #expect(options.scale == 3)
        #expect(options.maxPixelSize == 300)
        // Pixels are pixels, at scale 1, whatever scale is given.
        let pixels = ThumbnailOptions(size: CGSize(width: 100, height: 80), unit: .pixels, scale: 3)
        #expect(pixels.box == ThumbnailOptions.Box(width: 100, height: 80, contentMode: .aspectFill))
        #expect(pixels.scale == 1)
    }

    /// Points at scales 1, 2 and 3, fitted and filled: each side of the box is the points times
    /// the scale, the image carries the scale, and each scale is a key of its own.
    @Test(arguments: [1.0, 2.0, 3.0], ImageContentMode.allCases)
    func pointsAreSidesTimesTheScaleForEachContentMode(scale: Double, mode: ImageContentMode) {
        let options = ThumbnailOptions(size: CGSize(width: 100, height: 50), scale: scale, contentMode: mode)
        #expect(options.box == ThumbnailOptions.Box(width: Int(100 * scale), height: Int(50 * scale), contentMode: mode))
        #expect(options.scale == scale)
        // A 4000 × 1000 photo: fit makes its width the box's, fill its height.
        let size = options.targetSize(width: 4000, height: 1000)
        if mode == .aspectFit {
            #expect(size == (Int(100 * scale), Int(25 * scale)))
        } else {
            #expect(size == (Int(200 * scale), Int(50 * scale)))
        }
        #expect(options.description.hasSuffix(scale == 1 ? "\(mode == .aspectFit ? "fit" : "fill"))" : "@\(Int(scale)))"))
    }

    /// Linux has no screen: points without a scale are pixels (the main display's scale is 1).
    @Test func withoutAScalePointsArePixelsOnLinux() {
        #if os(Linux)
        let options = ThumbnailOptions(size: CGSize(width: 100, height: 50))
        #expect(options.box == ThumbnailOptions.Box(width: 100, height: 50, contentMode: .aspectFill))
        #expect(options.scale == 1)
        #expect(DisplayScale.main == 1)
        #endif
    }

    @Test(arguments: [
        // image, box (points) at 2×, mode → pixels
        (4000, 3000, 100.0, 100.0, ImageContentMode.aspectFit, 200, 150),
        (4000, 3000, 100.0, 100.0, .aspectFill, 267, 200),
        (3000, 4000, 100.0, 100.0, .aspectFit, 150, 200),
        (3000, 4000, 100.0, 100.0, .aspectFill, 200, 267),
        (4000, 1000, 150.0, 50.0, .aspectFit, 300, 75),
        (4000, 1000, 150.0, 50.0, .aspectFill, 400, 100),
        (1000, 4000, 150.0, 50.0, .aspectFit, 25, 100),
        (1000, 4000, 150.0, 50.0, .aspectFill, 300, 1200),
    ])
    func fitStaysInsideTheBoxAndFillCoversIt(width: Int, height: Int, boxWidth: Double, boxHeight: Double,
                                             mode: ImageContentMode, expectedWidth: Int, expectedHeight: Int) {
        let options = ThumbnailOptions(size: CGSize(width: boxWidth, height: boxHeight), unit: .points, scale: 2, contentMode: mode)
        let size = options.targetSize(width: width, height: height)
        #expect(size.width == expectedWidth && size.height == expectedHeight)
        #expect(options.maxPixelSize(width: width, height: height) == max(expectedWidth, expectedHeight))
        let box = options.box!
        if mode == .aspectFit {
            #expect(size.width <= box.width && size.height <= box.height)
        } else {
            #expect(size.width >= box.width && size.height >= box.height)
        }
    }

    @Test func anImageAlreadySmallerStaysUnlessUpscalingIsOn() {
        let fill = ThumbnailOptions(size: CGSize(width: 100, height: 100), scale: 3)
        #expect(fill.targetSize(width: 200, height: 100) == (200, 100))
        let up = ThumbnailOptions(size: CGSize(width: 100, height: 100), scale: 3, allowsUpscaling: true)
        #expect(up.targetSize(width: 200, height: 100) == (600, 300))
        let fit = ThumbnailOptions(size: CGSize(width: 100, height: 100), scale: 3, contentMode: .aspectFit, allowsUpscaling: true)
        #expect(fit.targetSize(width: 200, height: 100) == (300, 150))
    }

    @Test func degenerateBoxesAndScalesStayUsable() {
        let zero = ThumbnailOptions(size: CGSize(width: 0, height: -4), scale: 2)
        #expect(zero.box == ThumbnailOptions.Box(width: 1, height: 1, contentMode: .aspectFill))
        let nan = ThumbnailOptions(size: CGSize(width: Double.nan, height: 10), scale: .nan)
        #expect(nan.box == ThumbnailOptions.Box(width: 1, height: 10, contentMode: .aspectFill))
        #expect(nan.scale == 1)
        let huge = ThumbnailOptions(size: CGSize(width: Double.infinity, height: 10), scale: 2, allowsUpscaling: true)
        #expect(huge.box?.width == 1_000_000_000_000_000)
        #expect(huge.targetSize(width: 3, height: 2).width <= 1_000_000_000_000_000)
        #expect(zero.targetSize(width: 0, height: 0) == (0, 0))
    }

    @Test func cacheKeysTellBoxesModesAndScalesApart() {
        let fill3 = ThumbnailOptions(size: CGSize(width: 100, height: 80), scale: 3)
        let fit3 = ThumbnailOptions(size: CGSize(width: 100, height: 80), scale: 3, contentMode: .aspectFit)
        let fill1 = ThumbnailOptions(size: CGSize(width: 300, height: 240), unit: .pixels)
        let half = ThumbnailOptions(size: CGSize(width: 200, height: 160), scale: 1.5)
        #expect(fill3.description == "thumb(300x240,fill@3)")
        #expect(fit3.description == "thumb(300x240,fit@3)")
        #expect(fill1.description == "thumb(300x240,fill)")
        #expect(half.description == "thumb(300x240,fill@1.5)")
        #expect(Set([fill3, fit3, fill1, half]).count == 4)
        #expect(Set([fill3.description, fit3.description, fill1.description, half.description]).count == 4)
        // The longest-side forms keep their keys.
        #expect(ThumbnailOptions(maxPixelSize: 300).description == "thumb(300)")
        #expect(ThumbnailOptions(maxPixelSize: 300, allowsUpscaling: true).description == "thumb(300,up)")
    }

    @Test func settingTheLongestSideReplacesTheBox() {
        var options = ThumbnailOptions(size: CGSize(width: 100, height: 80), scale: 3)
        options.maxPixelSize = 64
        #expect(options.box == nil)
        #expect(options == ThumbnailOptions(maxPixelSize: 64))
        #expect(options.scale == 1)
        #expect(options.targetSize(width: 640, height: 320) == (64, 32))
    }

    @Test func theDecodingContextCarriesTheThumbnailsScale() {
        let options = ThumbnailOptions(size: CGSize(width: 100, height: 100), scale: 3)
        #expect(ImageDecodingContext(format: .png, thumbnail: options).scale == 3)
        #expect(ImageDecodingContext(format: .png, thumbnail: .init(maxPixelSize: 300)).scale == 1)
        #expect(ImageDecodingContext(format: .png).scale == 1)
        #expect(ImageDecodingContext(format: .png, thumbnail: nil, scale: 2).scale == 2)
    }

    @Test func thePipelineDecodesTheBoxesPixelSizeAndCachesEachBoxApart() async throws {
        let fixture = PipelineFixture(loader: ControlledDataLoader(autoRespond: { _ in
            .success(TestImages.encode(width: 200, height: 100, fill: 4))
        }))
        let url = PipelineFixture.url("photo")
        let fit = ImageRequest(url: url, thumbnail: .init(size: CGSize(width: 30, height: 30), scale: 2, contentMode: .aspectFit))
        let fill = ImageRequest(url: url, thumbnail: .init(size: CGSize(width: 30, height: 30), scale: 2, contentMode: .aspectFill))
        let fitImage = try await fixture.pipeline.image(for: fit)
        let fillImage = try await fixture.pipeline.image(for: fill)
        #expect(fitImage.pixelWidth == 60 && fitImage.pixelHeight == 30)
        #expect(fillImage.pixelWidth == 120 && fillImage.pixelHeight == 60)
        #expect(fit.cacheKey != fill.cacheKey)
        #expect(fixture.pipeline.cachedImage(for: fit)?.pixelWidth == 60)
        #expect(fixture.pipeline.cachedImage(for: fill)?.pixelWidth == 120)
    }
}

/// A request sized to the view that shows it: the view's points at the screen's scale.
@Suite("Requests sized to their view")
struct ViewSizedRequestTests {
    @Test func theViewsSizeAtTheScaleBecomesTheThumbnailAndTheRestIsKept() throws {
        let processor = CountingProcessor("p")
        let request = ImageRequest(url: URL(string: "https://example.com/a.jpg"), processors: [processor], priority: .high)
        let sized = request.sized(to: CGSize(width: 100, height: 80), scale: 3, contentMode: .aspectFit)
        #expect(sized.thumbnail == ThumbnailOptions(size: CGSize(width: 100, height: 80), scale: 3, contentMode: .aspectFit))
        #expect(sized.thumbnail?.box == ThumbnailOptions.Box(width: 300, height: 240, contentMode: .aspectFit))
        #expect(sized.processors.map(\.identifier) == ["p"])
        #expect(sized.priority == .high)
        #expect(sized.url == request.url)
        #expect(sized.cacheKey != request.cacheKey)
        // The same view and screen give the same key: a list that shows the image again hits memory.
        #expect(request.sized(to: CGSize(width: 100, height: 80), scale: 3, contentMode: .aspectFit).cacheKey == sized.cacheKey)
        #expect(request.sized(to: CGSize(width: 100, height: 80), scale: 2, contentMode: .aspectFit).cacheKey != sized.cacheKey)
    }

    @Test func aViewWithoutASizeLeavesTheRequestAsItIs() {
        let request = ImageRequest(url: URL(string: "https://example.com/a.jpg"))
        for size in [CGSize.zero, CGSize(width: 100, height: 0), CGSize(width: Double.infinity, height: 10),
                     CGSize(width: Double.nan, height: 10)] {
            #expect(request.sized(to: size, scale: 2).thumbnail == nil)
            #expect(request.sized(to: size, scale: 2).cacheKey == request.cacheKey)
        }
    }
}
