import Dispatch

/// Runs one animation buffer's decodes one at a time, in order, on a serial dispatch queue whose
/// threads are libdispatch's, never Swift's cooperative pool: a decode blocks its thread for as
/// long as it takes, and the pool's few threads (two on a two-core machine) stay free for every
/// other task of the process. The queues of all buffers target libdispatch's global queue, as the
/// pipeline's decodes do (`offThePool`), which runs about as many CPU-bound decodes at once as
/// there are cores. A pool of threads of Shashin's own, each buffer keeping to one of them,
/// measured the same in time and memory (BENCHMARKS.md, "Frames off the cooperative pool").
///
/// A caller that is cancelled gets `CancellationError` at once: a decode not started yet never
/// runs; one under way finishes on its thread (its frames stay buffered), unwaited for.
final class AnimationDecodeQueue: Sendable {
    private let queue = DispatchQueue(label: "shashin.animation-frames", qos: .userInitiated,
                                      target: .global(qos: .userInitiated))

    /// The result of `work`, run on the queue after the work queued before it.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try Task.checkCancellation()
        let call = Call<T>()
        // Task-local values do not cross to a dispatch thread: the caller's counter is carried.
        let counter = DecodedFrameCounter.current
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                guard call.wait(continuation) else { return }
                queue.async { DecodedFrameCounter.$current.withValue(counter) { call.run(work) } }
            }
        } onCancel: {
            call.cancel()
        }
    }

    /// One caller's decode: who resumes its continuation, and whether the decode may still start.
    private final class Call<T: Sendable>: Sendable {
        private enum State {
            /// Neither queued nor cancelled yet.
            case new
            /// Queued; the decode has not started.
            case queued(CheckedContinuation<T, any Error>)
            /// Decoding; the caller waits.
            case running(CheckedContinuation<T, any Error>)
            /// The caller has its answer (or was cancelled before it queued anything).
            case answered
        }

        private let state = Locked(State.new)

        /// Keeps `continuation` to resume later; `false` when the caller was cancelled first (it
        /// is resumed now, with `CancellationError`, and nothing is queued).
        func wait(_ continuation: CheckedContinuation<T, any Error>) -> Bool {
            let queued = state.withLock { state -> Bool in
                guard case .new = state else { return false }
                state = .queued(continuation)
                return true
            }
            if !queued { continuation.resume(throwing: CancellationError()) }
            return queued
        }

        /// Answers the caller with `CancellationError` now, whether or not the decode started.
        func cancel() {
            let waiting = state.withLock { state -> CheckedContinuation<T, any Error>? in
                defer { state = .answered }
                switch state {
                case .queued(let continuation), .running(let continuation): return continuation
                case .new, .answered: return nil
                }
            }
            waiting?.resume(throwing: CancellationError())
        }

        /// Runs `work` unless the caller was cancelled before it started, and answers the caller
        /// unless it was cancelled while it ran.
        func run(_ work: () throws -> T) {
            let started = state.withLock { state -> Bool in
                guard case .queued(let continuation) = state else { return false }
                state = .running(continuation)
                return true
            }
            guard started else { return }
            let result = Result { try work() }
            let waiting = state.withLock { state -> CheckedContinuation<T, any Error>? in
                guard case .running(let continuation) = state else { return nil }
                state = .answered
                return continuation
            }
            waiting?.resume(with: result)
        }
    }
}

