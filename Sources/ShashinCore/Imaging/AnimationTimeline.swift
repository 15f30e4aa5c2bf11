import Foundation

/// Which frame of an animation shows at a given time since it started, for views that play
/// the frames themselves (ShashinUI's `NSImageView` and `RemoteImage`).
///
/// A frame shorter than 20 ms shows for 100 ms, as browsers do (files say 0 for "as fast as
/// you can", which would otherwise spin). The animation plays `loopCount` times, then stays on
/// its last frame; 0 plays forever.
///
/// ```swift
/// let timeline = AnimationTimeline(animation)
/// let (index, remaining) = timeline.frame(at: elapsed)
/// show(animation.frames[index]); if let remaining { wake(after: remaining) }
/// ```
public struct AnimationTimeline: Sendable, Hashable {
    /// How long each frame shows, in seconds, after the short-frame rule.
    public let durations: [TimeInterval]
    /// How many times the frames play; 0 forever.
    public let loopCount: Int
    /// One pass through every frame, in seconds.
    public let cycle: TimeInterval

    /// The timeline of `animation`'s decoded frames.
    public init(_ animation: ImageAnimation) {
        self.init(durations: animation.frames.map(\.duration), loopCount: animation.loopCount)
    }

    /// The timeline of frames shown for `durations` (seconds, as the file gives them), played
    /// `loopCount` times (0: forever).
    public init(durations: [TimeInterval], loopCount: Int) {
        self.durations = durations.map { $0.isFinite && $0 >= 0.02 ? $0 : 0.1 }
        self.loopCount = max(0, loopCount)
        cycle = self.durations.reduce(0, +)
    }

    /// The frame showing `elapsed` seconds after the first appeared, and the seconds until the
    /// next one; `remaining` is `nil` when the frame stays (the last loop has ended, or there is
    /// at most one frame).
    public func frame(at elapsed: TimeInterval) -> (index: Int, remaining: TimeInterval?) {
        guard durations.count > 1 else { return (0, nil) }
        let elapsed = max(0, elapsed)
        if loopCount > 0, elapsed >= cycle * Double(loopCount) { return (durations.count - 1, nil) }
        var position = elapsed.truncatingRemainder(dividingBy: cycle)
        for (index, duration) in durations.enumerated() {
            if position < duration { return (index, duration - position) }
            position -= duration
        }
        // Rounding left `position` at the very end of the cycle: the first frame is next.
        return (durations.count - 1, durations[durations.count - 1])
    }
}
