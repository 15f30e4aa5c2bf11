import Foundation
import FuzzSupport
import Shashin

/// Sniffs the input's format and decodes it through the pipeline's decoder registry (libvips, and
/// libjpeg-turbo directly for plain JPEGs) with a 4 MP pixel limit, at full size or as a thumbnail.
///
/// Any input may fail, but only with `.decodingFailed` or `.imageTooLarge`; an image that decodes
/// must be a well-formed bitmap within the limit and of the thumbnail's size. The options come from
/// the input's length, not from bytes in front of it, so the seeds stay plain image files and every
/// mutation that changes the length also tries another path.
enum DecodeFuzzer {
    /// Small enough that a decoded image stays far below libFuzzer's memory limit under
    /// AddressSanitizer; headers declaring more are refused before any pixel is decoded.
    static let maxPixelCount = 4_000_000

    static let registry = ImageDecoderRegistry(defaultDecoder: VipsImageDecoder())

    static func thumbnail(forLength length: Int) -> ThumbnailOptions? {
        switch length % 5 {
        case 0, 1: return nil
        case 2: return ThumbnailOptions(maxPixelSize: 1 + length % 64)
        case 3: return ThumbnailOptions(maxPixelSize: 300)
        default: return ThumbnailOptions(maxPixelSize: 8 + length % 120, allowsUpscaling: true)
        }
    }

    static func run(_ data: Data) {
        let format = ImageFormat(sniffing: data)
        let thumbnail = thumbnail(forLength: data.count)
        let context = ImageDecodingContext(format: format, thumbnail: thumbnail, maxPixelCount: maxPixelCount)
        let bitmap: Bitmap
        do {
            bitmap = try registry.decode(data, context: context)
        } catch let error as ImagePipelineError {
            switch error {
            case .decodingFailed, .imageTooLarge: return
            default: fuzzFailure("decoding failed with \(error), not .decodingFailed or .imageTooLarge")
            }
        } catch {
            fuzzFailure("decoding threw \(type(of: error)): \(error), not an ImagePipelineError")
        }

        guard let format, format != .bmp, format != .tiff else {
            fuzzFailure("\(bitmap) decoded from data sniffed as \(format.map(String.init(describing:)) ?? "no format")")
        }
        guard bitmap.width > 0, bitmap.height > 0, bitmap.pixels.count == bitmap.width * bitmap.height * 4 else {
            fuzzFailure("a malformed bitmap: \(bitmap.width)×\(bitmap.height) with \(bitmap.pixels.count) bytes")
        }
        if let thumbnail {
            let longest = max(bitmap.width, bitmap.height)
            if longest > thumbnail.maxPixelSize || (thumbnail.allowsUpscaling && longest != thumbnail.maxPixelSize) {
                fuzzFailure("\(bitmap) for \(thumbnail)")
            }
        } else if bitmap.width * bitmap.height > maxPixelCount {
            fuzzFailure("\(bitmap) passed the limit of \(maxPixelCount) pixels")
        }
        if let animation = bitmap.animation, animation.frameCount < 2 || animation.data != data {
            fuzzFailure("animation data of \(animation.frameCount) frames that is not the input")
        }
    }
}
