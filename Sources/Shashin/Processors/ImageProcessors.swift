/// The built-in processors, for `ImageRequest.processors`.
///
/// Most are easiest to write with their leading-dot shorthand in a processor list:
///
/// ```swift
/// ImageRequest(url: url, processors: [.resize(width: 300), .roundedCorners(radius: 12), .blur(radius: 4)])
/// ```
///
/// Each one's `identifier` names it and every parameter that changes its output, so it becomes
/// part of the memory-cache key. On Linux they run on libvips (`ShashinVips`). On Apple
/// platforms only `Composition` exists for now: the Core Graphics versions of the others are
/// not written yet, and nothing unbuilt is declared there.
public enum ImageProcessors {}

#if !canImport(ImageIO)
import ShashinVips

extension ImageProcessors {
    /// Runs one processor's pixel work, reporting its failure as `processingFailed` under the
    /// processor's identifier.
    static func run(_ identifier: String, _ work: () throws(VipsProcessingError) -> Bitmap) throws(ImagePipelineError) -> Bitmap {
        do {
            return try work()
        } catch {
            throw .processingFailed(identifier: identifier, reason: error.reason)
        }
    }
}
#endif
