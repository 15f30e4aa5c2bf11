/// Asks the decoder to downsample while decoding, so a 12 MP photo shown at 300 px never
/// occupies 48 MB: JPEG and WebP shrink on load, far cheaper than decoding then resizing.
///
/// ```swift
/// ImageRequest(url: url, thumbnail: .init(maxPixelSize: 300))
/// ```
public struct ThumbnailOptions: Sendable, Hashable, CustomStringConvertible {
    /// The longest side of the decoded image, in pixels. The aspect ratio is kept.
    public var maxPixelSize: Int
    /// Whether an image smaller than `maxPixelSize` is scaled up. Default `false`.
    public var allowsUpscaling: Bool

    /// Creates thumbnail options for the given longest side in pixels.
    public init(maxPixelSize: Int, allowsUpscaling: Bool = false) {
        self.maxPixelSize = max(1, maxPixelSize)
        self.allowsUpscaling = allowsUpscaling
    }

    /// The size a `width` × `height` image becomes: the longest side is `maxPixelSize` (or the
    /// image's own when smaller and upscaling is off), the other keeps the aspect ratio, at least 1.
    public func targetSize(width: Int, height: Int) -> (width: Int, height: Int) {
        let longest = max(width, height)
        guard longest > 0 else { return (width, height) }
        guard longest > maxPixelSize || allowsUpscaling else { return (width, height) }
        let scale = Double(maxPixelSize) / Double(longest)
        let w = max(1, Int((Double(width) * scale).rounded()))
        let h = max(1, Int((Double(height) * scale).rounded()))
        return (w, h)
    }

    /// A stable text form that becomes part of cache keys, such as `thumb(300)`.
    public var description: String { allowsUpscaling ? "thumb(\(maxPixelSize),up)" : "thumb(\(maxPixelSize))" }
}
