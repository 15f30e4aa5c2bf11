#if !canImport(ImageIO) && !SHASHIN_APPLE_SHAPE
import ShashinVips
#endif

extension ImageProcessors {
    /// Cuts the largest centred circle out of the image: the result is a square whose side is
    /// the image's shorter side, transparent outside the circle, with an antialiased edge and an
    /// optional border along the inside of it.
    ///
    /// ```swift
    /// ImageRequest(url: avatarURL, processors: [.resize(width: 96, height: 96, crop: true), .circle])
    /// ```
    public struct Circle: ImageProcessing, Hashable {
        /// The line along the edge, its width in ``unit``s; `nil` (default) for none.
        public let border: Border?
        /// What the border's width is measured in: points (default, times the image's scale) or pixels.
        public let unit: ImageUnit

        /// Creates a circle crop with an optional border.
        public init(border: Border? = nil, unit: ImageUnit = .points) {
            self.border = border
            self.unit = unit
        }

        /// `circle` or `circle(pt,border=2,#FFFFFFFF)` (a border of width 0 is left out).
        public var identifier: String {
            guard let border, border.width != 0 else { return "circle" }
            return "circle(\(unit.suffix),\(border))"
        }

        /// Returns the circle; an empty image is returned as it is, a negative or non-finite
        /// border width throws `processingFailed`.
        public func process(_ image: PlatformImage) throws(ImagePipelineError) -> PlatformImage {
            try ImageProcessors.run(identifier) { () throws(ProcessingError) in
                let factor = unit == .points ? ImageProcessors.pointScale(of: image) : 1
                return try PixelWork.circle(image, border: border?.pixelWork(scaledBy: factor))
            }
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.Circle {
    /// The largest centred circle, without a border; see `ImageProcessors.Circle`.
    ///
    /// ```swift
    /// ImageRequest(url: url, processors: [.circle])
    /// ```
    public static var circle: Self { ImageProcessors.Circle() }

    /// The largest centred circle with a border along its edge (its width in points by
    /// default); see `ImageProcessors.Circle`.
    public static func circle(border: ImageProcessors.Border, unit: ImageUnit = .points) -> Self {
        ImageProcessors.Circle(border: border, unit: unit)
    }
}
