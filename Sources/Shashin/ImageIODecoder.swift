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
/// `VipsImageDecoder`: the pixel limit is checked from the header before decoding; incomplete
/// data fails (the first image must be complete, and a JPEG must reach its end-of-image marker,
/// as libjpeg demands on Linux); `allowsUpscaling` enlarges a smaller image to the thumbnail size;
/// colours are converted to sRGB (a Display P3 photo gives its sRGB colours, as on Linux); an
/// animated GIF, WebP or PNG (APNG) gives its first frame with `animation` holding every frame
/// at the same size (see `ImageIOAnimation`), or the first only when over the budgets. Images
/// have the context's scale (`ImageDecodingContext.scale`: the thumbnail's, else 1).
/// AVIF needs iOS 16, tvOS 16 or macOS 13; earlier systems fail with a reason that says so.
///
/// ```swift
/// var configuration = ImagePipeline.Configuration()
/// configuration.decoders.defaultDecoder = ImageIODecoder(usesEmbeddedThumbnails: true)
/// ```
///
/// This file is not compiled by the Linux CI; `make check-apple-shape` compiles the code that
/// uses it against a stand-in with the same signatures.
public struct ImageIODecoder: ImageDecoding {
    /// Whether a thumbnail request may be answered with the thumbnail a JPEG or HEIC file
    /// carries (its EXIF preview), when it has one, instead of downsampling the full image
    /// (ImageIO's `kCGImageSourceCreateThumbnailFromImageIfAbsent`). Default `false`.
    ///
    /// Turn it on for grids of camera photos where speed matters more than fidelity: reading
    /// the embedded thumbnail skips decoding the full image, many times faster. But the
    /// embedded thumbnail is often small (160 × 120 is common) and is never enlarged to the
    /// size asked for, may have another aspect ratio (letterboxed), and may be stale: an
    /// editor that changed the photo can leave the old preview in. Files without one are
    /// downsampled as usual.
    public var usesEmbeddedThumbnails: Bool

    /// Creates the decoder; `usesEmbeddedThumbnails` as the property says (default off).
    public init(usesEmbeddedThumbnails: Bool = false) {
        self.usesEmbeddedThumbnails = usesEmbeddedThumbnails
    }

    /// How ImageIO makes the decoded image: a thumbnail whose longest side is the request's
    /// (never above the image's own `longest`), with the EXIF orientation applied, decoded now.
    /// With `embedded`, a thumbnail the file carries is taken when the request asks for one.
    static func thumbnailOptions(_ context: ImageDecodingContext, width: Int, height: Int,
                                 embedded: Bool = false) -> CFDictionary {
        let longest = max(width, height)
        let fromFile = embedded && context.thumbnail != nil
        return [
            fromFile ? kCGImageSourceCreateThumbnailFromImageIfAbsent : kCGImageSourceCreateThumbnailFromImageAlways: true,
            kCGImageSourceCreateThumbnailWithTransform: true,
            kCGImageSourceShouldCacheImmediately: true,
            kCGImageSourceThumbnailMaxPixelSize: min(context.thumbnail?.maxPixelSize(width: width, height: height) ?? longest, longest),
        ] as CFDictionary
    }

    /// The image's size once its EXIF orientation is applied (orientations 5–8 turn it a
    /// quarter), which a thumbnail's box is measured against.
    static func uprightSize(_ properties: [CFString: Any], width: Int, height: Int) -> (width: Int, height: Int) {
        let orientation = properties[kCGImagePropertyOrientation] as? Int ?? 1
        return (5...8).contains(orientation) ? (height, width) : (width, height)
    }

    /// Decodes `data` (see the type's notes); throws `ImagePipelineError`.
    public func decode(_ data: Data, context: ImageDecodingContext) throws -> PlatformImage {
        guard let format = context.format ?? ImageFormat(sniffing: data) else {
            throw ImagePipelineError.decodingFailed(format: nil, reason: "The data is not in any known image format")
        }
        if format == .avif {
            guard #available(iOS 16, tvOS 16, macOS 13, watchOS 9, *) else {
                throw ImagePipelineError.decodingFailed(
                    format: format, reason: "AVIF needs iOS 16, tvOS 16 or macOS 13; this system's ImageIO cannot read it")
            }
        }
        let sourceOptions = [kCGImageSourceShouldCache: false] as CFDictionary
        guard let source = CGImageSourceCreateWithData(data as CFData, sourceOptions),
              CGImageSourceGetCount(source) > 0 else {
            throw ImagePipelineError.decodingFailed(format: format, reason: "ImageIO cannot read the data")
        }
        // The first image's own status (a later frame of an animation may be damaged), and for
        // JPEG the end-of-image marker, which ImageIO does not insist on.
        guard CGImageSourceGetStatusAtIndex(source, 0) == .statusComplete,
              format != .jpeg || JPEGStructure.reachesEndOfImage(data) else {
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
        let upright = Self.uprightSize(properties, width: width, height: height)
        if let size = context.thumbnail?.targetSize(width: upright.width, height: upright.height) {
            try context.checkPixelCount(width: size.width, height: size.height)
        }
        let longest = max(width, height)
        let options = Self.thumbnailOptions(context, width: upright.width, height: upright.height, embedded: usesEmbeddedThumbnails)
        guard var image = CGImageSourceCreateThumbnailAtIndex(source, 0, options) else {
            throw ImagePipelineError.decodingFailed(format: format, reason: "ImageIO failed to decode the image")
        }
        do {
            if let thumbnail = context.thumbnail, thumbnail.allowsUpscaling, thumbnail.maxPixelSize(width: upright.width, height: upright.height) > longest {
                // ImageIO never enlarges: drawn at the size `targetSize` gives the upright image
                // (and so into sRGB).
                let size = thumbnail.targetSize(width: image.width, height: image.height)
                image = try CoreGraphicsProcessing.redrawn(image, width: size.width, height: size.height)
            } else if !CoreGraphicsProcessing.isSRGB(image) {
                image = try CoreGraphicsProcessing.redrawn(image, width: image.width, height: image.height)
            }
        } catch {
            throw ImagePipelineError.decodingFailed(format: format, reason: String(describing: error))
        }
        let decoded = CoreGraphicsProcessing.makeImage(image, scale: context.scale)
        let frameCount = CGImageSourceGetCount(source)
        if frameCount > 1, format == .gif || format == .webp || format == .png {
            decoded.animation = ImageIOAnimation.animation(of: source, format: format, data: data, frameCount: frameCount,
                                                           canvas: (width, height), upright: upright, first: image, options: options,
                                                           context: context)
        }
        return decoded
    }
}
#endif
