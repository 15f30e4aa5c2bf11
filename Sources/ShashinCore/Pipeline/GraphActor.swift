import Dispatch

/// The job graph's isolation: every job, the graph's maps of jobs, and each waiter's hold on a job
/// live here, so the compiler checks that nothing else touches them.
///
/// One per process, on one serial dispatch queue: the graph's work is short bookkeeping
/// (subscribing, counting, handing results on), never I/O, decoding or waiting for the Swift
/// pool, so the pipelines of a process share it without waiting on each other for long.
/// Code off the actor reaches it with `GraphActor.sync` (on the caller's thread, as taking a lock
/// would: used from dispatch threads, never from the queue itself) or `GraphActor.async`; both are
/// one dispatch, where `Task { @GraphActor in }` would add a hop through the Swift pool.
@globalActor
actor GraphActor {
    static let shared = GraphActor()

    /// The queue every job of the actor runs on.
    static let queue = DispatchQueue(label: "shashin.pipeline.graph")
    private static let executor = GraphExecutor(queue: queue)

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: Self.executor)
    }

    /// Runs `operation` on the actor, from code already on `queue`; stops the process otherwise.
    /// As `MainActor.assumeIsolated` does for the main queue: the check is the dispatch queue's,
    /// which holds for jobs the executor runs and for blocks dispatched to the queue alike.
    static func assumeIsolated<T>(_ operation: @GraphActor () throws -> T) rethrows -> T {
        typealias Unisolated = () throws -> T
        dispatchPrecondition(condition: .onQueue(queue))
        return try withoutActuallyEscaping(operation) { isolated in
            try unsafeBitCast(isolated, to: Unisolated.self)()
        }
    }

    /// Runs `operation` on the actor and waits for it, on the calling thread. Never call it from
    /// the actor (it would wait for itself).
    static func sync<T>(_ operation: @GraphActor () throws -> T) rethrows -> T {
        try queue.sync { try assumeIsolated(operation) }
    }

    /// Runs `operation` on the actor later.
    static func async(_ operation: @escaping @GraphActor @Sendable () -> Void) {
        queue.async { assumeIsolated(operation) }
    }
}
