// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ShashinCore
import ShashinVips
import Testing

/// Downsampling at decode gives exactly `ThumbnailOptions.targetSize` of the upright image.
@Suite struct ThumbnailDecoding {
    static let formats: [ImageFormat] = [.jpeg, .png, .webp, .gif]

    private func decode(_ bitmap: Bitmap, as format: ImageFormat, _ thumbnail: ThumbnailOptions) throws -> Bitmap {
        let data = try VipsImageEncoder().encodeBitmap(bitmap, as: format, quality: 0.9)
        return try VipsImageDecoder().decodeBitmap(data, context: .init(format: format, thumbnail: thumbnail))
    }

    @Test(arguments: formats)
    func aLandscapeThumbnailHasTheAskedLongestSideAndAspectRatio(format: ImageFormat) throws {
        let thumbnail = try decode(TestImages.quadrants(width: 1200, height: 900), as: format, .init(maxPixelSize: 256))
        #expect(thumbnail.width == 256 && thumbnail.height == 192)
        #expect(TestImages.quadrantIndices(of: thumbnail) == [0, 1, 2, 3], "the picture itself survives downsampling")
    }

    @Test(arguments: formats)
    func aPortraitThumbnailHasTheAskedLongestSideAndAspectRatio(format: ImageFormat) throws {
        let thumbnail = try decode(TestImages.quadrants(width: 900, height: 1200), as: format, .init(maxPixelSize: 256))
        #expect(thumbnail.width == 192 && thumbnail.height == 256)
        #expect(TestImages.quadrantIndices(of: thumbnail) == [0, 1, 2, 3])
    }

    /// Sizes whose scaled sides land on .5 or near it, where independent rounding of the two
    /// axes (or a DCT shrink that leaves an odd remainder) would be off by one.
    @Test(arguments: [(1001, 333, 100), (999, 1000, 7), (640, 481, 320), (4000, 3, 256), (3, 4000, 256), (1234, 987, 611), (800, 600, 799)])
    func oddSizesComeOutExactlyAsTargetSizeSays(width: Int, height: Int, maxPixelSize: Int) throws {
        let options = ThumbnailOptions(maxPixelSize: maxPixelSize)
        let expected = options.targetSize(width: width, height: height)
        for format in [ImageFormat.jpeg, .png, .webp] {
            let thumbnail = try decode(TestImages.gradient(width: width, height: height), as: format, options)
            #expect(thumbnail.width == expected.width && thumbnail.height == expected.height,
                    "\(format) \(width)×\(height) → \(thumbnail.width)×\(thumbnail.height), expected \(expected)")
        }
    }

    @Test func aSmallImageIsNotScaledUp() throws {
        let small = TestImages.gradient(width: 100, height: 50)
        let decoded = try decode(small, as: .png, .init(maxPixelSize: 256))
        #expect(decoded == small, "left untouched, pixel for pixel")
    }

    @Test func aSmallImageIsScaledUpWhenAllowed() throws {
        let decoded = try decode(TestImages.quadrants(width: 100, height: 50), as: .png, .init(maxPixelSize: 256, allowsUpscaling: true))
        #expect(decoded.width == 256 && decoded.height == 128)
        #expect(TestImages.quadrantIndices(of: decoded) == [0, 1, 2, 3])
    }

    @Test func anImageAlreadyAtTheAskedSizeIsDecodedAsIs() throws {
        let image = TestImages.gradient(width: 256, height: 100)
        #expect(try decode(image, as: .png, .init(maxPixelSize: 256)) == image)
    }

    /// Upscaling makes the pixels the header did not declare: the thumbnail itself must stay
    /// within the pixel limit, or one tiny file asks for gigabytes.
    @Test(arguments: formats)
    func anUpscaledThumbnailOverThePixelLimitIsRefused(format: ImageFormat) throws {
        let data = try VipsImageEncoder().encodeBitmap(TestImages.gradient(width: 64, height: 48), as: format, quality: 0.9)
        let context = ImageDecodingContext(format: format, thumbnail: .init(maxPixelSize: 1000, allowsUpscaling: true), maxPixelCount: 100_000)
        #expect(throws: ImagePipelineError.imageTooLarge(width: 1000, height: 750, limit: 100_000)) {
            try VipsImageDecoder().decodeBitmap(data, context: context)
        }
    }

    /// 100,000 × 75,000 would be 30 GB; the default limit refuses it before anything is made.
    @Test func anUpscaledThumbnailOfAHundredThousandPixelsIsRefusedByTheDefaultLimit() throws {
        let data = try VipsImageEncoder().encodeBitmap(TestImages.gradient(width: 4, height: 3), as: .png, quality: 0.9)
        let context = ImageDecodingContext(format: .png, thumbnail: .init(maxPixelSize: 100_000, allowsUpscaling: true))
        #expect(throws: ImagePipelineError.imageTooLarge(width: 100_000, height: 75_000, limit: ImageDecodingContext.defaultMaxPixelCount)) {
            try VipsImageDecoder().decodeBitmap(data, context: context)
        }
    }

    /// `Int.max` as a longest side (and other absurd values) gives a size, not an overflow
    /// trap; the decoder then refuses it as too large.
    @Test(arguments: [Int.max, Int.max / 2, 1 << 53, Int(Int32.max) + 1, 1_000_000_000_000])
    func anAbsurdUpscaledSizeIsRefusedNotATrap(maxPixelSize: Int) throws {
        let options = ThumbnailOptions(maxPixelSize: maxPixelSize, allowsUpscaling: true)
        for (width, height) in [(1, 1), (3, 1), (1, 3), (64, 48)] {
            let target = options.targetSize(width: width, height: height)
            #expect(target.width >= 1 && target.height >= 1)
            #expect(max(target.width, target.height) >= min(maxPixelSize, 1_000_000_000), "\(width)×\(height) → \(target)")
        }
        let data = try VipsImageEncoder().encodeBitmap(TestImages.gradient(width: 3, height: 1), as: .png, quality: 0.9)
        let error = #expect(throws: ImagePipelineError.self) {
            try VipsImageDecoder().decodeBitmap(data, context: .init(format: .png, thumbnail: options, maxPixelCount: .max))
        }
        guard case .imageTooLarge? = error else {
            Issue.record("expected imageTooLarge, got \(String(describing: error))")
            return
        }
    }
}
#endif
