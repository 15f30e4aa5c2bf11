import Foundation

/// Keeps an animation's time while a view plays it from an `AnimationFrameBuffer`: which frame
/// is due by the clock, whether it is decoded, and which frame to decode next. It never falls
/// behind: a frame not decoded when it is due is dropped (the frame on screen stays), and when
/// decoding is late it decodes the frame that will be due once that decode ends (it measures
/// how long a frame takes to decode), not the one that was missed.
///
/// A player calls `step()` each time it wakes: it shows `Step.frame` when there is one, awaits
/// `fill()` when `Step.needsFill` says so (one frame's decode, on the buffer's decode queue, off
/// the main actor and the cooperative pool; then it steps again), and otherwise sleeps for
/// `Step.wait`. The clock is injected, so the timing is tested without waiting.
///
/// ```swift
/// let playback = AnimationPlayback(buffer: source.makeBuffer(), now: { ProcessInfo.processInfo.systemUptime })
/// let step = playback.step()
/// if let frame = step.frame { show(frame.bitmap) }
/// if step.needsFill { try await playback.fill() }
/// ```
public final class AnimationPlayback: @unchecked Sendable { // `state` under `lock`
    /// What to do now.
    public struct Step: Sendable {
        /// The frame to show now, when it differs from the one shown and is decoded.
        public var frame: (index: Int, bitmap: Bitmap)?
        /// Await `fill()`, then step again.
        public var needsFill: Bool
        /// Otherwise step again after this many seconds; `nil` when the animation has ended (its
        /// last loop played) and nothing more will show.
        public var wait: TimeInterval?
    }

    /// The shortest `Step.wait`: 1 ms.
    public static let shortestWait: TimeInterval = 0.001

    /// The frames' timeline (durations after the short-frame rule, and the loop count).
    public let timeline: AnimationTimeline
    /// The frames being played.
    public let buffer: AnimationFrameBuffer
    private let now: @Sendable () -> TimeInterval
    private let start: TimeInterval
    private let lock = Lock()
    private var state = State()

    private struct State {
        var shown = 0
        var dropped = 0
        var shownCount = 1
        /// The next `fill()`: the window's first frame and how many of it to decode.
        var plannedFill: (from: Int, count: Int)?
        /// Seconds the last decoded frame took, by the clock.
        var decodeTime: TimeInterval = 0
    }

    /// Plays `buffer` from its first frame (which a view shows already) from the time `now`
    /// gives now, in seconds on a monotonic clock.
    public init(buffer: AnimationFrameBuffer, now: @escaping @Sendable () -> TimeInterval) {
        self.buffer = buffer
        self.now = now
        timeline = AnimationTimeline(durations: buffer.source.durations, loopCount: buffer.source.loopCount)
        start = now()
    }

    /// The frame on screen.
    public var shownIndex: Int { lock.locked { state.shown } }
    /// Frames passed over because they were not decoded in time: skipped rather than shown late.
    public var droppedFrameCount: Int { lock.locked { state.dropped } }
    /// Frames shown so far, the first included.
    public var shownFrameCount: Int { lock.locked { state.shownCount } }
    /// How long the last frame took to decode, in seconds by the clock.
    public var lastDecodeTime: TimeInterval { lock.locked { state.decodeTime } }

    /// What to do at the clock's time now; see the type's notes.
    public func step() -> Step {
        // Fewer than two frames is a still image: nothing to play.
        guard timeline.durations.count > 1 else { return Step(frame: nil, needsFill: false, wait: nil) }
        let elapsed = now() - start
        let (due, timeLeft) = timeline.frame(at: elapsed)
        // At least a millisecond: a remainder lost to rounding must not wake the player at once.
        let remaining = timeLeft.map { max($0, Self.shortestWait) }
        let count = timeline.durations.count
        return lock.locked {
            var frame: (index: Int, bitmap: Bitmap)?
            if due != state.shown {
                guard let bitmap = buffer.bufferedFrame(at: due) else {
                    // Late: the frame on screen stays; decode the one due when that decode ends,
                    // or, when that one is held already, wait for it.
                    let target = timeline.frame(at: elapsed + state.decodeTime).index
                    guard buffer.bufferedFrame(at: target) == nil else {
                        state.plannedFill = nil
                        return Step(frame: nil, needsFill: false, wait: remaining)
                    }
                    state.plannedFill = (target, 1)
                    return Step(frame: nil, needsFill: true, wait: remaining)
                }
                state.dropped += (due - state.shown - 1 + count) % count
                state.shown = due
                state.shownCount += 1
                frame = (due, bitmap)
            }
            // On time: decode the first frame of the window after this one that is not held.
            let next = (due + 1) % count
            let window = (0..<min(buffer.capacity, count - 1)).map { (next + $0) % count }
            if remaining != nil, let missing = window.firstIndex(where: { buffer.bufferedFrame(at: $0) == nil }) {
                state.plannedFill = (next, missing + 1)
                return Step(frame: frame, needsFill: true, wait: remaining)
            }
            state.plannedFill = nil
            return Step(frame: frame, needsFill: false, wait: remaining)
        }
    }

    /// Decodes the frame the last `step()` asked for (nothing when it asked for none), timing
    /// it by the clock. The decode runs on the buffer's decode queue, never on the caller's
    /// thread or the cooperative pool; a cancelled caller gets `CancellationError` at once.
    public func fill() async throws {
        guard let planned = lock.locked({ state.plannedFill }) else { return }
        let before = now(), decodedBefore = buffer.decodedFrameCount
        try await buffer.fill(from: planned.from, count: planned.count)
        let decoded = buffer.decodedFrameCount - decodedBefore
        if decoded > 0 {
            let took = (now() - before) / Double(decoded)
            lock.locked { state.decodeTime = took }
        }
    }
}
