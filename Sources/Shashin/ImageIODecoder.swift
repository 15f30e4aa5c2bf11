#if canImport(ImageIO)
import Foundation
import ImageIO
import ShashinCore
#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

/// The default decoder on Apple platforms: ImageIO, which downsamples JPEG and HEIC while
/// decoding (`CGImageSourceCreateThumbnailAtIndex`) and applies EXIF orientation. It mirrors
/// `VipsImageDecoder`: the pixel limit is checked from the header before decoding, incomplete
/// data fails, and an animated GIF or WebP gives its first frame with `animation` set.
///
/// This file is not compiled by the Linux CI.
public struct ImageIODecoder: ImageDecoding {
    /// Creates the decoder.
    public init() {}

    /// Decodes `data` (see the type's notes); throws `ImagePipelineError`.
    public func decode(_ data: Data, context: ImageDecodingContext) throws -> PlatformImage {
        guard let format = context.format ?? ImageFormat(sniffing: data) else {
            throw ImagePipelineError.decodingFailed(format: nil, reason: "The data is not in any known image format")
        }
        let sourceOptions = [kCGImageSourceShouldCache: false] as CFDictionary
        guard let source = CGImageSourceCreateWithData(data as CFData, sourceOptions),
              CGImageSourceGetCount(source) > 0 else {
            throw ImagePipelineError.decodingFailed(format: format, reason: "ImageIO cannot read the data")
        }
        guard CGImageSourceGetStatus(source) == .statusComplete else {
            throw ImagePipelineError.decodingFailed(format: format, reason: "The data is incomplete")
        }
        guard let properties = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [CFString: Any],
              let width = properties[kCGImagePropertyPixelWidth] as? Int,
              let height = properties[kCGImagePropertyPixelHeight] as? Int else {
            throw ImagePipelineError.decodingFailed(format: format, reason: "The image has no dimensions")
        }
        // Checked from the header, before any pixel is allocated.
        guard width > 0, height > 0 else {
            throw ImagePipelineError.imageTooLarge(width: width, height: height, limit: context.maxPixelCount)
        }
        try context.checkPixelCount(width: width, height: height)
        // An upscaled thumbnail has pixels the header did not declare: it must pass the limit too.
        if let size = context.thumbnail?.targetSize(width: width, height: height) {
            try context.checkPixelCount(width: size.width, height: size.height)
        }
        let longest = max(width, height)
        let target = context.thumbnail.map { $0.allowsUpscaling ? $0.maxPixelSize : min($0.maxPixelSize, longest) } ?? longest
        let options = [
            kCGImageSourceCreateThumbnailFromImageAlways: true,
            kCGImageSourceCreateThumbnailWithTransform: true,
            kCGImageSourceShouldCacheImmediately: true,
            kCGImageSourceThumbnailMaxPixelSize: target,
        ] as CFDictionary
        guard let image = CGImageSourceCreateThumbnailAtIndex(source, 0, options) else {
            throw ImagePipelineError.decodingFailed(format: format, reason: "ImageIO failed to decode the image")
        }
        #if canImport(UIKit)
        let decoded = UIImage(cgImage: image)
        #else
        let decoded = NSImage(cgImage: image, size: NSSize(width: image.width, height: image.height))
        #endif
        let frameCount = CGImageSourceGetCount(source)
        if frameCount > 1, format == .gif || format == .webp {
            decoded.animation = ImageAnimation(format: format, frameCount: frameCount, data: data)
        }
        return decoded
    }
}
#endif
