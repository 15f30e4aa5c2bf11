import Foundation
#if !canImport(ImageIO) && !SHASHIN_APPLE_SHAPE
import ShashinVips
#endif

extension ImageProcessors {
    /// Cuts out a rectangle of the image, in pixels from its top-left corner. The part of the
    /// rectangle outside the image is dropped; a rectangle entirely outside fails the request
    /// with `processingFailed`.
    ///
    /// ```swift
    /// ImageRequest(url: url, processors: [.crop(x: 10, y: 10, width: 100, height: 50)])
    /// ```
    public struct Crop: ImageProcessing, Hashable {
        /// The left edge in pixels.
        public let x: Int
        /// The top edge in pixels.
        public let y: Int
        /// The width in pixels.
        public let width: Int
        /// The height in pixels.
        public let height: Int

        /// Creates a crop to the `width` × `height` rectangle at `(x, y)`.
        public init(x: Int, y: Int, width: Int, height: Int) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }

        /// Creates a crop to `rect` in pixels, widened to whole pixels (edges rounded outwards).
        public init(rect: CGRect) {
            let rect = rect.standardized
            let values = [rect.minX, rect.minY, rect.maxX, rect.maxY].map(Double.init)
            guard values.allSatisfy({ $0.isFinite && abs($0) < 1e15 }) else {
                self.init(x: 0, y: 0, width: 0, height: 0) // rejected when processing
                return
            }
            let left = Int(values[0].rounded(.down)), top = Int(values[1].rounded(.down))
            self.init(x: left, y: top, width: Int(values[2].rounded(.up)) - left, height: Int(values[3].rounded(.up)) - top)
        }

        /// `crop(x=10,y=20,w=100,h=50)`.
        public var identifier: String { "crop(\(rect))" }

        /// Returns the pixels of the rectangle; the image itself when the rectangle covers it.
        public func process(_ image: PlatformImage) throws(ImagePipelineError) -> PlatformImage {
            try ImageProcessors.run(identifier) { () throws(ProcessingError) in
                let inside = rect.clamped(toWidth: image.pixelWidth, height: image.pixelHeight)
                guard !inside.isEmpty else {
                    throw ProcessingError("The rectangle \(rect) does not overlap the \(image.pixelWidth)×\(image.pixelHeight) image")
                }
                return try PixelWork.crop(image, to: inside)
            }
        }

        private var rect: PixelRect { PixelRect(x: x, y: y, width: width, height: height) }
    }
}

extension ImageProcessing where Self == ImageProcessors.Crop {
    /// Cuts out the `width` × `height` rectangle at `(x, y)`, in pixels; see `ImageProcessors.Crop`.
    ///
    /// ```swift
    /// ImageRequest(url: url, processors: [.crop(x: 0, y: 0, width: 64, height: 64)])
    /// ```
    public static func crop(x: Int, y: Int, width: Int, height: Int) -> Self {
        ImageProcessors.Crop(x: x, y: y, width: width, height: height)
    }

    /// Cuts out `rect`, in pixels; see `ImageProcessors.Crop`.
    public static func crop(_ rect: CGRect) -> Self {
        ImageProcessors.Crop(rect: rect)
    }
}
