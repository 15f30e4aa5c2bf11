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

    @Test func webpAtFullQualityIsLosslessAndKeepsAlpha() throws {
        let data = try VipsImageEncoder().encodeBitmap(Self.image, as: .webp, quality: 1)
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

    @Test(arguments: [ImageFormat.heic, .avif, .bmp, .tiff])
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
