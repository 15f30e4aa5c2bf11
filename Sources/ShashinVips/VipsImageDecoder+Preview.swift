import Foundation
import ShashinCore

#if !canImport(UIKit) && !canImport(AppKit)
extension VipsImageDecoder: ProgressiveImageDecoding {
    /// A preview of a progressive JPEG from its first complete scans, by the direct libjpeg-turbo
    /// path (DCT scaling to the thumbnail size); `nil` for anything that path declines (a
    /// baseline JPEG, other formats, colour spaces and profiles libvips would transform) and for
    /// any failure: a preview never throws.
    public func decodePreview(_ data: Data, context: ImageDecodingContext) -> PlatformImage? {
        guard decodesJPEGDirectly, ImageFormat(sniffing: data) == .jpeg else { return nil }
        let outcome = data.withUnsafeBytes { bytes in try? DirectJPEGDecoder.decode(bytes, context: context, preview: true) }
        guard case .decoded(let bitmap)? = outcome else { return nil }
        return bitmap
    }

    /// A buffered-image session (`JPEGPreviewSession`) for a JPEG this decoder decodes by the
    /// direct path: each byte is entropy-decoded once across all previews, and the final image
    /// comes from the same session. `nil` for other formats.
    public func makeProgressiveSession(for data: Data, context: ImageDecodingContext) -> (any ProgressiveDecodingSession)? {
        guard decodesJPEGDirectly, ImageFormat(sniffing: data) == .jpeg else { return nil }
        return JPEGPreviewSession(context: context)
    }
}
#endif
