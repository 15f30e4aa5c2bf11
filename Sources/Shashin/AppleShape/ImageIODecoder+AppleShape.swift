#if SHASHIN_APPLE_SHAPE && !canImport(ImageIO)
import Foundation
import ShashinCore

/// The compile check `make check-apple-shape` (Linux, never run): `ImageIODecoder`'s public
/// signatures without ImageIO, so shared code that names the Apple decoder compiles here as on a
/// Mac. The real decoder is `Sources/Shashin/ImageIODecoder.swift`; keep the two in step.
public struct ImageIODecoder: ImageDecoding {
    /// Whether a file's embedded thumbnail may answer a thumbnail request (see the real decoder).
    public var usesEmbeddedThumbnails: Bool

    /// Creates the decoder.
    public init(usesEmbeddedThumbnails: Bool = false) {
        self.usesEmbeddedThumbnails = usesEmbeddedThumbnails
    }

    /// Always throws: this configuration has no ImageIO.
    public func decode(_ data: Data, context: ImageDecodingContext) throws -> PlatformImage {
        throw ImagePipelineError.decodingFailed(format: context.format, reason: "The apple-shape compile check has no ImageIO")
    }
}

extension ImageIODecoder: ProgressiveImageDecoding {
    /// Always `nil`: this configuration has no ImageIO.
    public func decodePreview(_ data: Data, context: ImageDecodingContext) -> PlatformImage? { nil }
}
#endif
