#if SHASHIN_APPLE_SHAPE && !canImport(ImageIO)
import Foundation
import ShashinCore

/// The compile check `make check-apple-shape` (Linux, never run): `ImageIOEncoder`'s public
/// signatures without ImageIO. The real encoder is `Sources/Shashin/ImageIOEncoder.swift`; keep
/// the two in step.
public struct ImageIOEncoder: ImageEncoding {
    /// Why an image could not be encoded.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The format that was asked for.
        public let format: ImageFormat
        /// What went wrong.
        public let reason: String
        /// A sentence saying what went wrong.
        public var description: String { "Failed to encode \(format): \(reason)" }
    }

    /// Creates the encoder.
    public init() {}

    /// Always throws: this configuration has no ImageIO.
    public func encode(_ image: PlatformImage, options: ImageEncodingOptions) throws -> Data {
        throw Failure(format: options.format, reason: "The apple-shape compile check has no ImageIO")
    }
}
#endif
