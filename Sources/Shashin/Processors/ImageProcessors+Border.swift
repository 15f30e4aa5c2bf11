#if !canImport(ImageIO) && !SHASHIN_APPLE_SHAPE
import ShashinVips
#endif

extension ImageProcessors {
    /// A line painted along the inside of a shape's edge (by `RoundedCorners` and `Circle`),
    /// over the image.
    ///
    /// ```swift
    /// .roundedCorners(radius: 16, border: .init(width: 2, color: .white))
    /// ```
    public struct Border: Sendable, Hashable, CustomStringConvertible {
        /// The width, in the unit of the processor that draws it (points by default). 0 draws nothing.
        public var width: Double
        /// The colour. Default white.
        public var color: Color

        /// Creates a border `width` wide (in the drawing processor's unit) in `color`.
        public init(width: Double, color: Color = .white) {
            self.width = width
            self.color = color
        }

        /// `border=2,#FFFFFFFF`: the part of an identifier that names this border.
        public var description: String { "border=\(IdentifierNumber(width)),\(color)" }

        /// This border as the pixel code takes it, its width multiplied by `factor` (pixels per unit).
        func pixelWork(scaledBy factor: Double) -> PixelWork.Border {
            PixelWork.Border(width: width * factor, red: color.red, green: color.green, blue: color.blue, alpha: color.alpha)
        }
    }

    /// A colour in sRGB with alpha, 8 bits per component, not premultiplied.
    ///
    /// ```swift
    /// let translucentBlack = ImageProcessors.Color(red: 0, green: 0, blue: 0, alpha: 128)
    /// ```
    public struct Color: Sendable, Hashable, CustomStringConvertible {
        /// Red, 0...255.
        public var red: UInt8
        /// Green, 0...255.
        public var green: UInt8
        /// Blue, 0...255.
        public var blue: UInt8
        /// Opacity, 0 (transparent) ... 255 (opaque). Default 255.
        public var alpha: UInt8

        /// Creates a colour from its components.
        public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
            self.red = red
            self.green = green
            self.blue = blue
            self.alpha = alpha
        }

        /// Opaque white.
        public static let white = Color(red: 255, green: 255, blue: 255)
        /// Opaque black.
        public static let black = Color(red: 0, green: 0, blue: 0)

        /// `#RRGGBBAA` in upper-case hex.
        public var description: String {
            "#" + [red, green, blue, alpha].map { byte in
                let hex = String(byte, radix: 16, uppercase: true)
                return hex.count == 1 ? "0" + hex : hex
            }.joined()
        }
    }
}
