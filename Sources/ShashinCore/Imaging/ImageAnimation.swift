import Foundation

/// What an animated image (GIF, WebP) keeps besides its first frame: the original bytes and how
/// many frames they hold, so a view that animates can play them.
///
/// The pipeline delivers the first frame as the image, and this on `ImageResponse.animation`
/// (and `PlatformImage.animation`, which travels with the image through the memory cache).
/// Processors apply to the first frame only; `data` is always the original file.
///
/// ```swift
/// let response = try await pipeline.response(for: request)
/// if let animation = response.animation { animatedView.play(animation.data) }   // frameCount > 1
/// ```
public struct ImageAnimation: Sendable, Hashable, CustomStringConvertible {
    /// The animation's format (`.gif` or `.webp`).
    public let format: ImageFormat
    /// Frames in the animation; always at least 2 (a single frame is a still image).
    public let frameCount: Int
    /// The original encoded bytes.
    public let data: Data

    /// Creates animation facts.
    public init(format: ImageFormat, frameCount: Int, data: Data) {
        self.format = format
        self.frameCount = frameCount
        self.data = data
    }

    /// `gif, 12 frames, 48213 bytes`.
    public var description: String { "\(format), \(frameCount) frames, \(data.count) bytes" }
}
