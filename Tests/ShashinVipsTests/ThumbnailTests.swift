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
}
#endif
