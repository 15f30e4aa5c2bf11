import Foundation

/// A decoder that can also make a preview from the first part of an image (the complete scans
/// of a progressive JPEG received so far). The pipeline asks for previews only from decoders
/// that conform, so any `ImageDecoding` stays swappable.
///
/// A preview must never throw or crash: data the decoder cannot make a preview of gives `nil`,
/// and the pipeline skips that preview (the final decode decides the result).
public protocol ProgressiveImageDecoding: ImageDecoding {
    /// A preview of the image whose first bytes are `data` (which ends after a complete scan),
    /// at `context.thumbnail`'s size like the final image, orientation applied; `nil` when
    /// there is none to make.
    func decodePreview(_ data: Data, context: ImageDecodingContext) -> PlatformImage?

    /// A session that decodes the previews of one download incrementally, for an image whose
    /// first bytes are `data`, at `context.thumbnail`'s size; `nil` (the default) makes each
    /// preview with `decodePreview(_:context:)`, from the start of the data.
    func makeProgressiveSession(for data: Data, context: ImageDecodingContext) -> (any ProgressiveDecodingSession)?
}

extension ProgressiveImageDecoding {
    /// No session: each preview is decoded from the start of the data.
    public func makeProgressiveSession(for data: Data, context: ImageDecodingContext) -> (any ProgressiveDecodingSession)? {
        nil
    }
}

extension ImageDecoderRegistry: ProgressiveImageDecoding {
    /// A preview from the decoder this registry would use for `data`, when that decoder makes
    /// previews; `nil` otherwise.
    public func decodePreview(_ data: Data, context: ImageDecodingContext) -> PlatformImage? {
        guard let decoder = decoder(for: data) as? any ProgressiveImageDecoding else { return nil }
        return decoder.decodePreview(data, context: context)
    }

    /// A session from the decoder this registry would use for `data`, when that decoder makes
    /// them; `nil` otherwise.
    public func makeProgressiveSession(for data: Data, context: ImageDecodingContext) -> (any ProgressiveDecodingSession)? {
        guard let decoder = decoder(for: data) as? any ProgressiveImageDecoding else { return nil }
        return decoder.makeProgressiveSession(for: data, context: context)
    }
}
