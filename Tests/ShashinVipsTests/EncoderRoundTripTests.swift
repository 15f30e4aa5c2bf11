// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ShashinCore
import ShashinVips
import Testing

/// What `VipsImageEncoder` writes decodes back to the same image (exactly, where lossless).
@Suite struct EncoderRoundTrip {
    static let image = TestImages.gradient(width: 301, height: 199, alpha: true)

    @Test func pngKeepsEveryPixelAndAlpha() throws {
        let data = try VipsImageEncoder().encodeBitmap(Self.image, as: .png, quality: 0.5)
        #expect(ImageFormat(sniffing: data) == .png)
        #expect(try VipsImageDecoder().decodeBitmap(data, context: .init(format: .png)) == Self.image)
    }

    @Test func losslessWebPKeepsEveryPixelAndAlpha() throws {
        let data = try VipsImageEncoder().encodeBitmap(Self.image, options: .webp(lossless: true))
        #expect(ImageFormat(sniffing: data) == .webp)
        #expect(try VipsImageDecoder().decodeBitmap(data, context: .init(format: .webp)) == Self.image)
    }

    @Test(arguments: [ImageFormat.jpeg, .webp, .gif])
    func lossyFormatsDecodeToTheSameSizeAndRoughlyTheSamePixels(format: ImageFormat) throws {
        let opaque = TestImages.quadrants(width: 301, height: 199)
        let data = try VipsImageEncoder().encodeBitmap(opaque, as: format, quality: 0.8)
        #expect(ImageFormat(sniffing: data) == format)
        let decoded = try VipsImageDecoder().decodeBitmap(data, context: .init(format: format))
        #expect(decoded.width == 301 && decoded.height == 199)
        #expect(TestImages.quadrantIndices(of: decoded) == [0, 1, 2, 3])
    }

    @Test func jpegQualityChangesTheFileSize() throws {
        let image = TestImages.gradient(width: 256, height: 256)
        let low = try VipsImageEncoder().encodeBitmap(image, as: .jpeg, quality: 0.1)
        let high = try VipsImageEncoder().encodeBitmap(image, as: .jpeg, quality: 0.95)
        #expect(low.count < high.count)
    }

    @Test func jpegCompositesTransparencyOverWhite() throws {
        let clear = Bitmap(width: 16, height: 16, pixels: [UInt8](repeating: 0, count: 16 * 16 * 4))
        let decoded = try VipsImageDecoder().decodeBitmap(try VipsImageEncoder().encodeBitmap(clear, as: .jpeg, quality: 0.9), context: .init(format: .jpeg))
        let pixel = decoded.pixel(x: 8, y: 8)
        #expect(pixel.r >= 250 && pixel.g >= 250 && pixel.b >= 250 && pixel.a == 255)
    }

    @Test func anOpaqueImageIsWrittenWithoutAlphaAndDecodesToTheSamePixels() throws {
        let opaque = TestImages.gradient(width: 64, height: 48)
        let png = try VipsImageEncoder().encodeBitmap(opaque, as: .png, quality: 1)
        #expect(png[25] == 2, "IHDR colour type 2 (truecolour, no alpha), not \(png[25])")
        #expect(try VipsImageDecoder().decodeBitmap(png, context: .init(format: .png)) == opaque)
        let translucent = try VipsImageEncoder().encodeBitmap(Self.image, as: .png, quality: 1)
        #expect(translucent[25] == 6, "IHDR colour type 6 (truecolour with alpha)")
        let webp = try VipsImageEncoder().encodeBitmap(opaque, options: .webp(lossless: true))
        #expect(try VipsImageDecoder().decodeBitmap(webp, context: .init(format: .webp)) == opaque)
    }

    @Test func lossyWebPAtFullQualityIsNotLossless() throws {
        let lossy = try VipsImageEncoder().encodeBitmap(Self.image, options: .webp(quality: 1))
        let decoded = try VipsImageDecoder().decodeBitmap(lossy, context: .init(format: .webp))
        #expect(decoded.width == Self.image.width && decoded != Self.image)
    }

    @Test func webpQualityChangesTheFileSize() throws {
        let image = TestImages.gradient(width: 256, height: 256)
        let low = try VipsImageEncoder().encodeBitmap(image, options: .webp(quality: 0.1))
        let high = try VipsImageEncoder().encodeBitmap(image, options: .webp(quality: 0.95))
        #expect(low.count < high.count)
    }

    /// HEIC (HEVC through x265) and AVIF (AV1 through libaom), both from libvips' libheif module.
    @Test(arguments: [ImageFormat.heic, .avif])
    func heifFormatsRoundTripThroughLibheif(format: ImageFormat) throws {
        let opaque = TestImages.quadrants(width: 120, height: 80)
        let data = try VipsImageEncoder().encodeBitmap(opaque, options: ImageEncodingOptions(format: format, quality: 0.8))
        #expect(ImageFormat(sniffing: data) == format)
        let decoded = try VipsImageDecoder().decodeBitmap(data, context: .init(format: format))
        #expect(decoded.width == 120 && decoded.height == 80)
        #expect(TestImages.quadrantIndices(of: decoded) == [0, 1, 2, 3])
        let thumbnail = try VipsImageDecoder().decodeBitmap(data, context: .init(format: format, thumbnail: .init(maxPixelSize: 30)))
        #expect(thumbnail.width == 30 && thumbnail.height == 20)
    }

    /// A size libheif's encoder refuses (x265 and libaom cap the sides) used to come back as a
    /// "successful" file of ~200 bytes holding no image: it must throw instead.
    @Test(arguments: [ImageFormat.heic, .avif])
    func aSizeTheHEIFEncoderRefusesThrowsInsteadOfWritingAnEmptyFile(format: ImageFormat) throws {
        for (width, height) in [(1, 70_000), (70_000, 1)] {
            let error = #expect(throws: VipsEncodingError.self) {
                try VipsImageEncoder().encodeBitmap(TestImages.gradient(width: width, height: height),
                                                    options: ImageEncodingOptions(format: format, quality: 0.5))
            }
            #expect(error?.format == format)
        }
    }

    @Test func theProtocolsConvenienceUsesTheDefaultQuality() throws {
        let image = TestImages.gradient(width: 64, height: 64)
        let viaProtocol = try VipsImageEncoder().encode(image, as: .jpeg)
        let explicit = try VipsImageEncoder().encodeBitmap(image, options: .jpeg(quality: ImageEncodingOptions.defaultQuality))
        #expect(viaProtocol == explicit)
    }

    @Test(arguments: [ImageFormat.bmp, .tiff])
    func formatsItCannotWriteThrowAnEncodingError(format: ImageFormat) {
        #expect(throws: VipsEncodingError.self) {
            try VipsImageEncoder().encode(Self.image, as: format, quality: 0.8)
        }
    }

    @Test func anEmptyBitmapThrowsInsteadOfCrashing() {
        #expect(throws: VipsEncodingError.self) {
            try VipsImageEncoder().encode(Bitmap(width: 0, height: 0, pixels: []), as: .png, quality: 1)
        }
    }
}
#endif
