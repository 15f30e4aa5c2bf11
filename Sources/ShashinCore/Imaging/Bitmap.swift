import Foundation

/// A decoded image as 8-bit RGBA pixels, row by row, with no padding between rows.
///
/// This is `PlatformImage` where neither UIKit nor AppKit exists (Linux). Decoders deliver it with
/// EXIF orientation already applied and colours in sRGB, so `pixels[(y * width + x) * 4]` is the red
/// value of the pixel a viewer would show at `(x, y)`.
///
/// ```swift
/// let red = Bitmap(width: 1, height: 1, pixels: [255, 0, 0, 255])
/// ```
public struct Bitmap: Sendable, Hashable, CustomStringConvertible {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `width * height * 4` bytes: red, green, blue, alpha (not premultiplied) for each pixel.
    public let pixels: [UInt8]
    /// For the first frame of an animated GIF or WebP: every frame (this bitmap is the first),
    /// their durations, the loop count and the encoded data; `nil` for still images. Decoders set
    /// it; the pipeline runs processors on every frame.
    public var animation: ImageAnimation?

    /// Creates a bitmap; `pixels.count` must be `width * height * 4`.
    public init(width: Int, height: Int, pixels: [UInt8], animation: ImageAnimation? = nil) {
        precondition(width >= 0 && height >= 0 && pixels.count == width * height * 4,
                     "Bitmap needs width * height * 4 bytes")
        self.width = width
        self.height = height
        self.pixels = pixels
        self.animation = animation
    }

    /// The bytes this bitmap holds in memory, with an animation's other frames and its encoded
    /// data: what the memory cache counts against its limit.
    public var byteCount: Int { pixels.count + (animation.map { $0.extraFrameByteCount + $0.data.count } ?? 0) }

    /// `Bitmap(300×225)`: the size, not a million pixel values.
    public var description: String { "Bitmap(\(width)×\(height))" }

    /// The RGBA value at `(x, y)`, for tests and tools.
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let i = (y * width + x) * 4
        return (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
    }
}
