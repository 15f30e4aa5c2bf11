/// The built-in processors, for `ImageRequest.processors`.
///
/// Most are easiest to write with their leading-dot shorthand in a processor list:
///
/// ```swift
/// ImageRequest(url: url, processors: [.resize(width: 100), .roundedCorners(radius: 12), .blur(radius: 4)])
/// ```
///
/// Sizes are in points unless a processor says otherwise (`unit: .pixels`). A resize multiplies
/// points by the display's scale (the result carries it); rounded corners and circle borders by
/// the image's own scale (a thumbnail in points has the display's), so a 12 pt corner is 12 pt
/// on screen. On Linux, where there is no screen, the scale is 1: points are pixels.
///
/// Each one's `identifier` names it and every parameter that changes its output, so it becomes
/// part of the memory-cache key. On Linux they run on libvips and C (`ShashinVips`); on Apple
/// platforms on Core Graphics and Core Image (`CoreGraphicsProcessing`, not built by the Linux CI).
public enum ImageProcessors {}

#if canImport(ImageIO)
/// The pixel work behind the built-in processors: Core Graphics on Apple platforms.
typealias PixelWork = CoreGraphicsProcessing
/// Why a processor's pixel work failed.
typealias ProcessingError = CoreGraphicsProcessing.Failure
#elseif SHASHIN_APPLE_SHAPE
/// The compile check `make check-apple-shape`: the signature-only stand-in of Core Graphics.
typealias PixelWork = CoreGraphicsProcessing
/// Why a processor's pixel work failed.
typealias ProcessingError = CoreGraphicsProcessing.Failure
#else
import ShashinVips
/// The pixel work behind the built-in processors: libvips (and C) elsewhere.
typealias PixelWork = VipsProcessing
/// Why a processor's pixel work failed.
typealias ProcessingError = VipsProcessingError
#endif

extension ImageProcessors {
    /// Pixels per point of `image`: its scale on Apple platforms; 1 on Linux, where a `Bitmap` has none.
    static func pointScale(of image: PlatformImage) -> Double {
        #if canImport(ImageIO)
        CoreGraphicsProcessing.scale(of: image)
        #else
        1
        #endif
    }

    /// `image` at `scale` pixels per point, the same pixels (Apple platforms); as it is without a
    /// scale, or on Linux.
    static func rescaled(_ image: PlatformImage, to scale: Double?) -> PlatformImage {
        #if canImport(ImageIO)
        guard let scale, scale != CoreGraphicsProcessing.scale(of: image) else { return image }
        return CoreGraphicsProcessing.rescaled(image, to: scale)
        #else
        image
        #endif
    }

    /// Runs one processor's pixel work, reporting its failure as `processingFailed` under the
    /// processor's identifier.
    static func run(_ identifier: String, _ work: () throws(ProcessingError) -> PlatformImage) throws(ImagePipelineError) -> PlatformImage {
        do {
            return try work()
        } catch {
            throw .processingFailed(identifier: identifier, reason: error.reason)
        }
    }
}
