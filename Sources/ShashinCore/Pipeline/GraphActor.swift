import Dispatch

/// The job graph's isolation: every job, the graph's maps of jobs, and each waiter's hold on a job
/// live here, so the compiler checks that nothing else touches them.
///
/// One per process. Its exclusion is a lock (`GraphLock`): the graph's work is short
/// bookkeeping (subscribing, counting, handing results on), never I/O, decoding or waiting for the
/// Swift pool, so a thread that has a result runs the graph's part of it itself with
/// `GraphActor.sync`, as it would take a lock, and waits only for other threads' critical sections,
/// never for a queue's backlog. Work that must not run on the calling thread goes through
/// `GraphActor.async`, on a serial queue (so it keeps the order it was sent in), under the same
/// lock; so do the jobs of `Task { @GraphActor in }` and of `@GraphActor` async functions, through
/// the executor. `sync` may overtake blocks sent with `async` before it: what is sent with `async`
/// (progress, previews) must tolerate arriving after the job has ended.
@globalActor
actor GraphActor {
    static let shared = GraphActor()

    /// Where the actor's asynchronous work runs, in the order it was sent.
    static let queue = DispatchQueue(label: "shashin.pipeline.graph")
    /// The actor's isolation: held by whichever thread runs the actor's work.
    static let exclusion = GraphLock()
    private static let executor = GraphExecutor()

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: Self.executor)
    }

    /// Runs `operation` on the actor, from code already on it (holding `exclusion`); stops the
    /// process otherwise. As `MainActor.assumeIsolated` does for the main thread.
    static func assumeIsolated<T>(_ operation: @GraphActor () throws -> T) rethrows -> T {
        precondition(exclusion.isHeldByCurrentThread, "not on the graph's actor")
        return try runIsolated(operation)
    }

    /// Runs `operation` on the actor and waits for it, on the calling thread. Never call it from
    /// the actor (it would wait for itself; that stops the process).
    static func sync<T>(_ operation: @GraphActor () throws -> T) rethrows -> T {
        try exclusion.run { try runIsolated(operation) }
    }

    /// Runs `operation` on the actor later, on the actor's queue.
    static func async(_ operation: @escaping @GraphActor @Sendable () -> Void) {
        queue.async { sync(operation) }
    }

    /// Runs `operation` on the actor now, on this thread (as `sync`), unless this thread is already
    /// on the actor (app code called from the graph's work); then later, as `async`, so the graph is
    /// never re-entered in the middle of an operation. For what a caller starts or stops (a task, a
    /// cancellation, a priority), whose order from one thread must hold.
    static func promptly(_ operation: @escaping @GraphActor @Sendable () -> Void) {
        if exclusion.isHeldByCurrentThread { async(operation) } else { sync(operation) }
    }

    /// Runs `work` on this thread once it releases the actor: for calls into the app's code
    /// (cancelling a loader, closing a decoder's session), so no thread waiting for the actor
    /// waits for them.
    static func afterUnlock(_ work: @escaping () -> Void) {
        exclusion.afterUnlock(work)
    }

    /// Calls `operation` as the nonisolated closure it is while `exclusion` is held.
    private static func runIsolated<T>(_ operation: @GraphActor () throws -> T) rethrows -> T {
        typealias Unisolated = () throws -> T
        return try withoutActuallyEscaping(operation) { isolated in
            try unsafeBitCast(isolated, to: Unisolated.self)()
        }
    }
}
