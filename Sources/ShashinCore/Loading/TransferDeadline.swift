import Dispatch

/// Runs an action once, `seconds` from now, unless cancelled first: a transfer's total time limit.
///
/// A dispatch timer source, not a work item posted with `asyncAfter`: cancelling a posted work
/// item leaves it, and all its closure holds (the transfer, its buffer, the task), queued until its
/// time comes, 300 s by default, so a busy loader would keep every finished transfer of the last
/// five minutes. A cancelled source lets its handler go as soon as the cancellation is processed.
final class TransferDeadline {
    private let timer: any DispatchSourceTimer

    /// Starts the clock; `action` runs on a global queue.
    init(seconds: Double, action: @escaping @Sendable () -> Void) {
        timer = DispatchSource.makeTimerSource(queue: .global())
        timer.setEventHandler(handler: action)
        timer.schedule(deadline: .now() + seconds)
        timer.activate()
    }

    /// Stops the clock; the action does not run unless it already has.
    func cancel() {
        timer.cancel()
    }

    deinit { timer.cancel() }
}
