#if !canImport(ImageIO) && !SHASHIN_APPLE_SHAPE
import ShashinVips
#endif

extension ImageProcessors {
    /// Rounds the image's corners: what lies outside a rounded rectangle of corner `radius`
    /// becomes transparent, with antialiased edges. A radius over half the shorter side is capped
    /// there (a capsule); 0 keeps square corners (useful with a border).
    ///
    /// With a `border`, a line of its width and colour is painted over the image along the
    /// inside of the edge. The radius and the border's width are in `unit`s: points (default),
    /// multiplied by the image's own scale (a thumbnail in points carries the screen's, so a 12 pt
    /// corner is 12 pt on screen; on Linux the scale is 1), or pixels.
    ///
    /// ```swift
    /// ImageRequest(url: url, processors: [.resize(width: 100), .roundedCorners(radius: 12)])
    /// ```
    public struct RoundedCorners: ImageProcessing, Hashable {
        /// The corner radius, in ``unit``s.
        public let radius: Double
        /// The line along the edge, its width in ``unit``s; `nil` (default) for none.
        public let border: Border?
        /// What the radius and the border's width are measured in. Default `.points`.
        public let unit: ImageUnit

        /// Creates rounded corners of `radius` (points by default), with an optional border.
        public init(radius: Double, unit: ImageUnit = .points, border: Border? = nil) {
            self.radius = radius
            self.unit = unit
            self.border = border
        }

        /// `roundedCorners(r=12pt)` or `roundedCorners(r=12px,border=2,#FFFFFFFF)` (a border of
        /// width 0 is left out: it draws nothing).
        public var identifier: String {
            let border = border.flatMap { $0.width == 0 ? nil : ",\($0)" } ?? ""
            return "roundedCorners(r=\(IdentifierNumber(radius))\(unit.suffix)\(border))"
        }

        /// Returns the image with its corners cut round. An empty image is returned as it is;
        /// a negative or non-finite radius or border width throws `processingFailed`.
        public func process(_ image: PlatformImage) throws(ImagePipelineError) -> PlatformImage {
            try ImageProcessors.run(identifier) { () throws(ProcessingError) in
                let factor = unit == .points ? ImageProcessors.pointScale(of: image) : 1
                return try PixelWork.roundCorners(image, radius: radius * factor, border: border?.pixelWork(scaledBy: factor))
            }
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.RoundedCorners {
    /// Rounds the corners by `radius` (points by default), with an optional border; see
    /// `ImageProcessors.RoundedCorners`.
    ///
    /// ```swift
    /// ImageRequest(url: url, processors: [.roundedCorners(radius: 12, border: .init(width: 2, color: .black))])
    /// ```
    public static func roundedCorners(radius: Double, unit: ImageUnit = .points, border: ImageProcessors.Border? = nil) -> Self {
        ImageProcessors.RoundedCorners(radius: radius, unit: unit, border: border)
    }
}
