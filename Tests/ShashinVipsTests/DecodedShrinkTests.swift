// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ShashinCore
@testable import ShashinVips
import Testing

/// Thumbnails of formats without shrink-on-load (PNG, GIF) are decoded whole and shrunk in C
/// (box, then Lanczos 3 for the last 2× or more): close to libvips' own box + Lanczos resize.
@Suite struct DecodedShrink {
    @Test(arguments: [false, true])
    func aPNGThumbnailIsCloseToLibvipsResizeOfTheFullImage(alpha: Bool) throws {
        let source = TestImages.gradient(width: 1200, height: 900, alpha: alpha)
        let png = try VipsImageEncoder().encodeBitmap(source, as: .png, quality: 1)
        let thumbnail = try VipsImageDecoder().decodeBitmap(png, context: .init(format: .png, thumbnail: .init(maxPixelSize: 200)))
        #expect((thumbnail.width, thumbnail.height) == (200, 150))
        let reference = try VipsProcessing.resize(source, width: 200, height: 150, maxPixelCount: ImageDecodingContext.defaultMaxPixelCount,
                                                  directShrinkLimit: 0)
        let difference = JPEGFiles.difference(thumbnail, reference)
        // Both box-average then Lanczos; they place the blocks differently. The gradient's
        // wrap-arounds (255 → 0 every 256 px) are where they differ most. Measured means 0.05–0.30.
        #expect(difference.mean < 1, "alpha \(alpha): \(difference)")
    }

    @Test func aFlatPNGStaysExactlyFlatAtEverySize() throws {
        let flat = Bitmap(width: 333, height: 251, pixels: Array([[UInt8]](repeating: [200, 100, 50, 255], count: 333 * 251).joined()))
        let png = try VipsImageEncoder().encodeBitmap(flat, as: .png, quality: 1)
        for size in [1, 7, 64, 100, 250] {
            let thumbnail = try VipsImageDecoder().decodeBitmap(png, context: .init(format: .png, thumbnail: .init(maxPixelSize: size)))
            #expect(Set(stride(from: 0, to: thumbnail.pixels.count, by: 4).map { Array(thumbnail.pixels[$0..<$0 + 4]) }) == [[200, 100, 50, 255]],
                    "\(size): \(thumbnail)")
        }
    }
}
#endif
