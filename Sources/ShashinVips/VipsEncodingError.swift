import ShashinCore

/// Why `VipsImageEncoder` could not encode an image.
public struct VipsEncodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The format that was asked for.
    public let format: ImageFormat
    /// What went wrong: libvips' message, or that the format cannot be written.
    public let reason: String

    /// Creates an encoding error.
    public init(format: ImageFormat, reason: String) {
        self.format = format
        self.reason = reason
    }

    /// A sentence saying what went wrong.
    public var description: String { "Failed to encode \(format): \(reason)" }
}
