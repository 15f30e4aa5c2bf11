#if canImport(ImageIO)
import Foundation
import ImageIO
import ShashinCore

extension ImageIODecoder: ProgressiveImageDecoding {
    /// A preview of a progressive JPEG from its first complete scans: an incremental image
    /// source given the bytes so far, thumbnailed to the request's size as `decode` does (upright,
    /// sRGB). `nil` for other formats, over the pixel limit, or when ImageIO makes nothing of the
    /// bytes yet; never throws.
    ///
    /// Not compiled by the Linux CI (ImageIO exists only on Apple platforms).
    public func decodePreview(_ data: Data, context: ImageDecodingContext) -> PlatformImage? {
        guard (context.format ?? ImageFormat(sniffing: data)) == .jpeg else { return nil }
        let source = CGImageSourceCreateIncremental([kCGImageSourceShouldCache: false] as CFDictionary)
        CGImageSourceUpdateData(source, data as CFData, false)
        guard CGImageSourceGetCount(source) > 0,
              let properties = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [CFString: Any],
              let width = properties[kCGImagePropertyPixelWidth] as? Int,
              let height = properties[kCGImagePropertyPixelHeight] as? Int,
              width > 0, height > 0,
              (try? context.checkPixelCount(width: width, height: height)) != nil else { return nil }
        let longest = max(width, height)
        let upright = Self.uprightSize(properties, width: width, height: height)
        let options = Self.thumbnailOptions(context, width: upright.width, height: upright.height)
        guard var image = CGImageSourceCreateThumbnailAtIndex(source, 0, options) else { return nil }
        if let thumbnail = context.thumbnail, thumbnail.allowsUpscaling, thumbnail.maxPixelSize(width: upright.width, height: upright.height) > longest {
            let size = thumbnail.targetSize(width: image.width, height: image.height)
            guard let redrawn = try? CoreGraphicsProcessing.redrawn(image, width: size.width, height: size.height) else { return nil }
            image = redrawn
        } else if !CoreGraphicsProcessing.isSRGB(image) {
            guard let redrawn = try? CoreGraphicsProcessing.redrawn(image, width: image.width, height: image.height) else { return nil }
            image = redrawn
        }
        return CoreGraphicsProcessing.makeImage(image, scale: context.scale)
    }
}
#endif
