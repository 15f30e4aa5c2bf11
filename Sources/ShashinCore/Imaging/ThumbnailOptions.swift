/// Asks the decoder to downsample while decoding, so a 12 MP photo shown at 300 px never
/// occupies 48 MB: JPEG and WebP shrink on load, far cheaper than decoding then resizing.
///
/// Sizes are in pixels, and decoded images have scale 1 on every platform (a `UIImage` of
/// 300×300 pixels is 300×300 points). For a view measured in points, ask for points × the
/// screen's scale, as `init(maxPointSize:scale:)` does, and let the view scale the image to fit:
///
/// ```swift
/// ImageRequest(url: url, thumbnail: .init(maxPixelSize: 300))
/// ImageRequest(url: url, thumbnail: .init(maxPointSize: 100, scale: window.screen.scale))  // 300 px at 3×
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

    /// Creates thumbnail options for a longest side of `maxPointSize` points on a screen of
    /// `scale` pixels per point: `maxPointSize × scale` pixels, rounded up (at least 1; NaN gives
    /// 1, and the product is capped at 10^15 like `targetSize`'s sides).
    public init(maxPointSize: Double, scale: Double, allowsUpscaling: Bool = false) {
        let pixels = (maxPointSize * scale).rounded(.up)
        self.init(maxPixelSize: pixels.isNaN ? 1 : Int(min(max(pixels, 1), 1e15)), allowsUpscaling: allowsUpscaling)
    }

    /// The size a `width` × `height` image becomes: the longest side is `maxPixelSize` (or the
    /// image's own when smaller and upscaling is off), the other keeps the aspect ratio, at least 1.
    /// Each side is capped at 10^15, so an absurd `maxPixelSize` (up to `Int.max`) gives a size
    /// the decoder refuses against its pixel limit, not an overflow.
    public func targetSize(width: Int, height: Int) -> (width: Int, height: Int) {
        let longest = max(width, height)
        guard longest > 0 else { return (width, height) }
        guard longest > maxPixelSize || allowsUpscaling else { return (width, height) }
        let scale = Double(maxPixelSize) / Double(longest)
        // Double(Int.max) is 2^63, one past what an Int holds: converting it back would trap.
        func side(_ length: Int) -> Int { max(1, Int(min((Double(length) * scale).rounded(), 1e15))) }
        return (side(width), side(height))
    }

    /// A stable text form that becomes part of cache keys, such as `thumb(300)`.
    public var description: String { allowsUpscaling ? "thumb(\(maxPixelSize),up)" : "thumb(\(maxPixelSize))" }
}
