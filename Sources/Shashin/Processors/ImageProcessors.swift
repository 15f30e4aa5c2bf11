/// The built-in processors, for `ImageRequest.processors`.
///
/// Most are easiest to write with their leading-dot shorthand in a processor list:
///
/// ```swift
/// ImageRequest(url: url, processors: [.resize(width: 300), .roundedCorners(radius: 12), .blur(radius: 4)])
/// ```
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
