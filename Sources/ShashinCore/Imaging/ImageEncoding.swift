import Foundation

/// Turns an image into encoded bytes: to store processed results on disk, to write files
/// (`shashin fetch -o`), to make test images. An implementation must be safe to call from several
/// threads at once.
///
/// ```swift
/// let jpeg = try encoder.encode(image, as: .jpeg, quality: 0.8)
/// let lossless = try encoder.encode(image, options: .webp(lossless: true))
/// ```
public protocol ImageEncoding: Sendable {
    /// Encodes `image` as `options` say. Throws when the format cannot be written.
    func encode(_ image: PlatformImage, options: ImageEncodingOptions) throws -> Data
}

extension ImageEncoding {
    /// Encodes `image` as `format`; `quality` (0...1, default 0.85) applies to JPEG and lossy WebP.
    public func encode(_ image: PlatformImage, as format: ImageFormat,
                       quality: Double = ImageEncodingOptions.defaultQuality) throws -> Data {
        try encode(image, options: ImageEncodingOptions(format: format, quality: quality))
    }
}
