import ShashinCore

/// Counts the frames this decoder asks libvips (or, for an APNG, libpng through libvips) to
/// decode, within a task that sets one: how the tests see that first-frame-only decodes one
/// frame and a streamed animation decodes frames only when played. A still image counts one.
final class DecodedFrameCounter: Sendable {
    private let count = Locked(0)

    /// The frames counted so far.
    var frames: Int { count.current }

    /// The counter of the current task, if it set one.
    @TaskLocal static var current: DecodedFrameCounter?

    /// Adds `frames` to the current task's counter, if any.
    static func add(_ frames: Int) {
        current?.count.withLock { $0 += frames }
    }
}

