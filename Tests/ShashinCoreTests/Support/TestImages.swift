import Foundation
@testable import ShashinCore

/// A tiny image format for tests: "TIMG" + width + height (one byte each) + the RGBA of every pixel.
enum TestImages {
    static func encode(width: Int, height: Int, fill: UInt8) -> Data {
        Data(Array("TIMG".utf8) + [UInt8(width), UInt8(height)] + Array(repeating: fill, count: width * height * 4))
    }

    /// A `PlatformImage` on every platform (a `Bitmap` on Linux, a `UIImage`/`NSImage` elsewhere).
    static func makeImage(width: Int, height: Int, fill: UInt8 = 7) -> PlatformImage {
        Bitmap(width: width, height: height, pixels: Array(repeating: fill, count: width * height * 4)).platformImage
    }
}

extension PlatformImage {
    /// The image's pixels, through the accessor every platform has; a test fails (traps) on an
    /// image without a bitmap, which no test makes.
    var testBitmap: Bitmap { Bitmap(platformImage: self)! }
}

/// Decodes `TestImages` data, counting its calls; anything else fails like a real decoder would.
final class TestDecoder: ImageDecoding, @unchecked Sendable { // `calls` behind its lock
    let calls = Locked(0)

    func decode(_ data: Data, context: ImageDecodingContext) throws -> PlatformImage {
        calls.withLock { $0 += 1 }
        let bytes = [UInt8](data)
        guard bytes.count >= 6, Array(bytes.prefix(4)) == Array("TIMG".utf8) else {
            throw ImagePipelineError.decodingFailed(format: context.format, reason: "not a test image")
        }
        let width = Int(bytes[4]), height = Int(bytes[5])
        guard width * height <= context.maxPixelCount else {
            throw ImagePipelineError.imageTooLarge(width: width, height: height, limit: context.maxPixelCount)
        }
        guard bytes.count == 6 + width * height * 4 else {
            throw ImagePipelineError.decodingFailed(format: nil, reason: "truncated")
        }
        let size: (width: Int, height: Int) = context.thumbnail?.targetSize(width: width, height: height) ?? (width, height)
        return Bitmap(width: size.width, height: size.height, pixels: Array(repeating: bytes[6], count: size.width * size.height * 4)).platformImage
    }
}

/// Appends a marker byte to the image's first pixel and counts its calls, so tests see which
/// steps ran and in what order.
final class CountingProcessor: ImageProcessing, @unchecked Sendable { // `calls` behind its lock
    let identifier: String
    let calls = Locked(0)
    private let fails: Bool

    init(_ identifier: String, fails: Bool = false) {
        self.identifier = identifier
        self.fails = fails
    }

    struct Failure: Error {}

    func process(_ image: PlatformImage) throws -> PlatformImage {
        calls.withLock { $0 += 1 }
        if fails { throw Failure() }
        let bitmap = image.testBitmap
        var pixels = bitmap.pixels
        pixels[0] &+= 1
        return Bitmap(width: bitmap.width, height: bitmap.height, pixels: pixels).platformImage
    }
}

/// Encodes an image back into `TestImages` data (every format alike), so processed results can
/// be stored and read back without a codec library.
struct TestEncoder: ImageEncoding {
    func encode(_ image: PlatformImage, options: ImageEncodingOptions) throws -> Data {
        let bitmap = image.testBitmap
        return Data(Array("TIMG".utf8) + [UInt8(bitmap.width), UInt8(bitmap.height)] + bitmap.pixels)
    }
}
