#if !canImport(ImageIO) && !SHASHIN_APPLE_SHAPE
import ShashinVips
#endif

extension ImageProcessors {
    /// Blurs the image with a Gaussian whose standard deviation is `radius` pixels (as Pillow's
    /// `GaussianBlur(radius)`). The size is kept; pixels past the edges count as copies of the
    /// edge, so borders do not darken. Transparency is blurred premultiplied, so transparent
    /// pixels do not bleed colour. A radius of 0 returns the image unchanged; one over the
    /// image's longer side is treated as that side (the result would hardly change).
    ///
    /// ```swift
    /// ImageRequest(url: url, processors: [.resize(width: 64), .blur(radius: 4)])
    /// ```
    public struct GaussianBlur: ImageProcessing, Hashable {
        /// The standard deviation of the Gaussian, in pixels. Default 8.
        public let radius: Double

        /// Creates a blur of `radius` pixels.
        public init(radius: Double = 8) {
            self.radius = radius
        }

        /// `gaussianBlur(r=4)`.
        public var identifier: String { "gaussianBlur(r=\(IdentifierNumber(radius)))" }

        /// Returns the blurred image; a negative or non-finite radius throws `processingFailed`.
        public func process(_ image: PlatformImage) throws(ImagePipelineError) -> PlatformImage {
            try ImageProcessors.run(identifier) { () throws(ProcessingError) in
                try PixelWork.gaussianBlur(image, sigma: radius)
            }
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.GaussianBlur {
    /// A Gaussian blur of `radius` pixels (the standard deviation; default 8); see
    /// `ImageProcessors.GaussianBlur`.
    ///
    /// ```swift
    /// ImageRequest(url: url, processors: [.blur(radius: 4)])
    /// ```
    public static func blur(radius: Double = 8) -> Self {
        ImageProcessors.GaussianBlur(radius: radius)
    }
}
