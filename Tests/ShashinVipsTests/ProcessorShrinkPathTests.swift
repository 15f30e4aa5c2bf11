// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import Shashin
@testable import ShashinVips
import Testing

/// Shrinks by up to 8× take a direct Lanczos-3 pass in C instead of libvips' box pre-shrink and
/// reduce: the two give nearly the same pixels.
@Suite("Processors: direct shrink against libvips")
struct ProcessorShrinkPathTests {
    static let cases: [(Int, Int, Int, Int, Bool)] = [
        (1024, 1024, 256, 256, false), (1024, 1024, 256, 256, true), (640, 480, 300, 225, false),
        (333, 217, 41, 200, true), (800, 600, 100, 75, false), (97, 89, 96, 88, true),
    ]

    @Test(arguments: cases)
    func theDirectShrinkIsCloseToLibvips(source: (Int, Int, Int, Int, Bool)) throws {
        let (width, height, targetWidth, targetHeight, alpha) = source
        let image = TestImages.gradient(width: width, height: height, alpha: alpha)
        let limit = ImageDecodingContext.defaultMaxPixelCount
        let direct = try VipsProcessing.resize(image, width: targetWidth, height: targetHeight, maxPixelCount: limit)
        let vips = try VipsProcessing.resize(image, width: targetWidth, height: targetHeight, maxPixelCount: limit, directShrinkLimit: 0)
        #expect((direct.width, direct.height) == (targetWidth, targetHeight))
        let difference = JPEGFiles.difference(direct, vips)
        // The gradient wraps every 256 px (a hard edge from 255 to 0) where the kernels' ringing
        // differs most; elsewhere the two agree to a level or two. Measured means: 0.03–1.12.
        #expect(difference.mean < 1.5, "\(width)×\(height) → \(targetWidth)×\(targetHeight): \(difference)")
    }

    @Test func aCroppedSourceIsShrunkFromItsOwnPixelsOnly() throws {
        var pixels = [UInt8](repeating: 0, count: 100 * 100 * 4)
        for y in 0..<100 { for x in 0..<100 { pixels[(y * 100 + x) * 4 + (x < 50 ? 0 : 2)] = 255; pixels[(y * 100 + x) * 4 + 3] = 255 } }
        let halves = Bitmap(width: 100, height: 100, pixels: pixels)
        let left = try VipsProcessing.resize(halves, source: PixelRect(x: 0, y: 10, width: 50, height: 80), width: 10, height: 16,
                                             maxPixelCount: ImageDecodingContext.defaultMaxPixelCount)
        #expect(Set(stride(from: 0, to: left.pixels.count, by: 4).map { Array(left.pixels[$0..<$0 + 4]) }) == [[255, 0, 0, 255]])
    }
}
#endif
