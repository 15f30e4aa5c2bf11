import Foundation

/// Which frame of a video a video decoder gives, and how exactly: the platform's decoder
/// (`import Shashin`: AVFoundation on Apple platforms) follows these; the arithmetic is here, so
/// it is the same everywhere.
///
/// ```swift
/// configuration.decoders.videoDecoder = AVFoundationVideoDecoder(frame: .init(time: 1.5, isExact: true))
/// ```
public struct VideoFrameOptions: Sendable, Hashable, CustomStringConvertible {
    /// Seconds from the start of the video; default 0, the first frame.
    public var time: Double
    /// Whether the frame must be the one at `time` (decoded from the keyframe before it:
    /// slower), or may be the keyframe nearest to it (default; the first frame is a keyframe).
    public var isExact: Bool

    /// The first frame.
    public static let firstFrame = VideoFrameOptions()

    /// Creates options for the frame at `time` seconds.
    public init(time: Double = 0, isExact: Bool = false) {
        self.time = time
        self.isExact = isExact
    }

    /// The time to ask for in a video `duration` seconds long: `time` within the video (a time
    /// past the end is the end, a negative or not-a-number time the start); `time` (or 0) when the
    /// duration is unknown (not finite, or not positive).
    public func clampedTime(duration: Double) -> Double {
        let time = self.time.isFinite ? max(0, self.time) : 0
        guard duration.isFinite, duration > 0 else { return time }
        return min(time, duration)
    }

    /// How far from the asked time the frame may be, in seconds, before and after: 0 when exact,
    /// else unbounded (the nearest keyframe).
    public var tolerance: Double { isExact ? 0 : .infinity }

    /// The longest side to ask the video decoder for, so that it does not make a frame larger
    /// than needed: the thumbnail's longest side for a `maxPixelSize` thumbnail that does not
    /// upscale; `nil` (the video's own size, scaled afterwards) for a box, which depends on the
    /// frame's aspect, or for no thumbnail.
    public static func maximumSide(for thumbnail: ThumbnailOptions?) -> Int? {
        guard let thumbnail, thumbnail.box == nil, !thumbnail.allowsUpscaling else { return nil }
        return thumbnail.maxPixelSize
    }

    /// `t=1.5s exact`, for logs.
    public var description: String { "t=\(time)s" + (isExact ? " exact" : "") }
}
