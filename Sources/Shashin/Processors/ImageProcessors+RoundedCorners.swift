#if !canImport(ImageIO) && !SHASHIN_APPLE_SHAPE
import ShashinVips
#endif

extension ImageProcessors {
    /// Rounds the image's corners: what lies outside a rounded rectangle of corner `radius`
    /// pixels becomes transparent, with antialiased edges. A radius over half the shorter side
    /// is capped there (a capsule); 0 keeps square corners (useful with a border).
    ///
    /// With a `border`, a line of its width and colour is painted over the image along the
    /// inside of the edge.
    ///
    /// ```swift
    /// ImageRequest(url: url, processors: [.resize(width: 300), .roundedCorners(radius: 12)])
    /// ```
    public struct RoundedCorners: ImageProcessing, Hashable {
        /// The corner radius in pixels.
        public let radius: Double
        /// The line along the edge; `nil` (default) for none.
        public let border: Border?

        /// Creates rounded corners of `radius` pixels, with an optional border.
        public init(radius: Double, border: Border? = nil) {
            self.radius = radius
            self.border = border
        }

        /// `roundedCorners(r=12)` or `roundedCorners(r=12,border=2,#FFFFFFFF)` (a border of
        /// width 0 is left out: it draws nothing).
        public var identifier: String {
            let border = border.flatMap { $0.width == 0 ? nil : ",\($0)" } ?? ""
            return "roundedCorners(r=\(IdentifierNumber(radius))\(border))"
        }

        /// Returns the image with its corners cut round. An empty image is returned as it is;
        /// a negative or non-finite radius or border width throws `processingFailed`.
        public func process(_ image: PlatformImage) throws(ImagePipelineError) -> PlatformImage {
            try ImageProcessors.run(identifier) { () throws(ProcessingError) in
                try PixelWork.roundCorners(image, radius: radius, border: border?.pixelWork)
            }
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.RoundedCorners {
    /// Rounds the corners by `radius` pixels, with an optional border; see
    /// `ImageProcessors.RoundedCorners`.
    ///
    /// ```swift
    /// ImageRequest(url: url, processors: [.roundedCorners(radius: 12, border: .init(width: 2, color: .black))])
    /// ```
    public static func roundedCorners(radius: Double, border: ImageProcessors.Border? = nil) -> Self {
        ImageProcessors.RoundedCorners(radius: radius, border: border)
    }
}
