import Foundation

/// Asks the decoder to downsample while decoding, so a 12 MP photo shown at 300 px never
/// occupies 48 MB: JPEG and WebP shrink on load, far cheaper than decoding then resizing.
///
/// Two ways to say the size:
/// - **A box with a content mode** (`init(size:unit:scale:contentMode:)`), as a view is
///   measured, in points by default: `.aspectFit` makes the image fit inside the box,
///   `.aspectFill` makes it cover the box (its other side overflows, for the view to crop). Points
///   are multiplied by the scale: the one given, else the main display's on Apple platforms, and
///   the decoded image carries that scale, so a 100 pt view on a 3× screen gets a 300 px image
///   that shows at 100 pt. On Linux there is no screen: the scale is 1 unless given (a `Bitmap`
///   has no scale; the same options give the same pixels).
/// - **The longest side in pixels** (`init(maxPixelSize:)`), for a size that is not a view's.
///   The image has scale 1.
///
/// ```swift
/// ImageRequest(url: url, thumbnail: .init(size: CGSize(width: 100, height: 80)))   // 100 × 80 pt, filled
/// ImageRequest(url: url, thumbnail: .init(size: CGSize(width: 100, height: 80), scale: 3,
///                                         contentMode: .aspectFit))               // inside 300 × 240 px, scale 3
/// ImageRequest(url: url, thumbnail: .init(maxPixelSize: 300))
/// ```
public struct ThumbnailOptions: Sendable, Hashable, CustomStringConvertible {
    /// A thumbnail's box in pixels and how the image meets it.
    public struct Box: Sendable, Hashable {
        /// The box's width in pixels, at least 1.
        public var width: Int
        /// The box's height in pixels, at least 1.
        public var height: Int
        /// Fit inside or cover.
        public var contentMode: ImageContentMode
    }

    /// The longest side of the decoded image, in pixels; the aspect ratio is kept. For a box,
    /// the box's longer side; setting it replaces the box by this longest side, at scale 1.
    public var maxPixelSize: Int {
        get { box.map { max($0.width, $0.height) } ?? longestSide }
        set { longestSide = max(1, newValue); box = nil; scale = 1 }
    }
    /// Whether an image smaller than the asked size is scaled up. Default `false`.
    public var allowsUpscaling: Bool
    /// The box the image fits or fills, in pixels; `nil` for a longest side.
    public private(set) var box: Box?
    /// Pixels per point of the decoded image: `UIImage.scale` (and an `NSImage`'s size in
    /// points) on Apple platforms; nothing on Linux. A box in points has its scale; otherwise 1.
    public private(set) var scale: Double = 1

    private var longestSide: Int

    /// Creates thumbnail options for the given longest side in pixels.
    public init(maxPixelSize: Int, allowsUpscaling: Bool = false) {
        self.longestSide = max(1, maxPixelSize)
        self.allowsUpscaling = allowsUpscaling
    }

    /// Creates thumbnail options for a box: `size` in `unit`s (default points), which the image
    /// fits inside (`.aspectFit`) or covers (`.aspectFill`, default). In points each side is
    /// `side × scale` pixels, rounded up, where `scale` is the one given (a positive finite
    /// number), else the main display's (1 on Linux); in pixels, as given; at least 1, NaN gives
    /// 1, capped at 10^15. The decoded image carries the scale in points, 1 in pixels.
    ///
    /// ```swift
    /// ThumbnailOptions(size: CGSize(width: 100, height: 100), contentMode: .aspectFit)   // the screen's scale
    /// ThumbnailOptions(size: CGSize(width: 100, height: 100), scale: 2)                  // 200 × 200 px, scale 2
    /// ```
    public init(size: CGSize, unit: ImageUnit = .points, scale: Double? = nil, contentMode: ImageContentMode = .aspectFill,
                allowsUpscaling: Bool = false) {
        let scale = unit == .points ? DisplayScale.resolve(scale) : 1
        let factor = scale
        let box = Box(width: Self.pixels(Double(size.width) * factor), height: Self.pixels(Double(size.height) * factor),
                      contentMode: contentMode)
        self.longestSide = max(box.width, box.height)
        self.allowsUpscaling = allowsUpscaling
        self.box = box
        self.scale = scale
    }

    /// The size a `width` × `height` image becomes, in pixels. For a longest side: that side is
    /// `maxPixelSize`, the other keeps the aspect ratio. For a box: scaled by the box's width or
    /// height ratio, whichever is smaller (fit) or larger (fill). An image already within the
    /// size is left as it is unless upscaling is on. Each side is at least 1 and capped at 10^15,
    /// so an absurd size (up to `Int.max`) gives a size the decoder refuses against its pixel
    /// limit, not an overflow.
    public func targetSize(width: Int, height: Int) -> (width: Int, height: Int) {
        guard max(width, height) > 0 else { return (width, height) }
        let ratio: Double
        if let box {
            guard width > 0, height > 0 else { return (width, height) }
            let horizontal = Double(box.width) / Double(width), vertical = Double(box.height) / Double(height)
            ratio = box.contentMode == .aspectFit ? min(horizontal, vertical) : max(horizontal, vertical)
        } else {
            ratio = Double(longestSide) / Double(max(width, height))
        }
        guard ratio < 1 || allowsUpscaling else { return (width, height) }
        // Double(Int.max) is 2^63, one past what an Int holds: converting it back would trap.
        func side(_ length: Int) -> Int { max(1, Int(min((Double(length) * ratio).rounded(), 1e15))) }
        return (side(width), side(height))
    }

    /// The longest side of ``targetSize(width:height:)``: what a decoder that takes a longest
    /// side (ImageIO's `kCGImageSourceThumbnailMaxPixelSize`) is asked for.
    public func maxPixelSize(width: Int, height: Int) -> Int {
        let size = targetSize(width: width, height: height)
        return max(size.width, size.height)
    }

    /// A stable text form that becomes part of cache keys, such as `thumb(300)`, or
    /// `thumb(300x240,fill@3)` for a box at scale 3.
    public var description: String {
        let upscaling = allowsUpscaling ? ",up" : ""
        guard let box else { return "thumb(\(longestSide)\(upscaling))" }
        let mode = box.contentMode == .aspectFit ? "fit" : "fill"
        let scale = scale == 1 ? "" : scale == scale.rounded() && scale < 1e6 ? "@\(Int(scale))" : "@\(scale)"
        return "thumb(\(box.width)x\(box.height),\(mode)\(scale)\(upscaling))"
    }

    /// `value` rounded up to whole pixels, at least 1 (NaN gives 1), at most 10^15.
    private static func pixels(_ value: Double) -> Int {
        let pixels = value.rounded(.up)
        return pixels.isNaN ? 1 : Int(min(max(pixels, 1), 1e15))
    }
}
