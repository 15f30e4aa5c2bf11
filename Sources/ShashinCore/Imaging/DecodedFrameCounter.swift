/// Counts the frames a decoder asks its library to decode (ShashinVips: libvips, or libpng
/// through libvips for an APNG), within a task that sets one: how the tests see that
/// first-frame-only decodes one frame and a streamed animation decodes frames only when played.
/// A still image counts one. An `AnimationFrameBuffer` carries the caller's counter to the thread
/// its decode runs on.
package final class DecodedFrameCounter: Sendable {
    private let count = Locked(0)

    package init() {}

    /// The frames counted so far.
    package var frames: Int { count.current }

    /// The counter of the current task, if it set one.
    @TaskLocal package static var current: DecodedFrameCounter?

    /// Adds `frames` to the current task's counter, if any.
    package static func add(_ frames: Int) {
        current?.count.withLock { $0 += frames }
    }
}
