import Foundation

/// The mutual exclusion behind `GraphActor`: a lock that knows whether the current thread holds
/// it, so the actor's isolation can be checked (`GraphActor.assumeIsolated`, the executor's
/// `checkIsolated`) on any thread that runs the actor's work.
///
/// Held only for the graph's short bookkeeping. A thread that finds it taken waits for the holder's
/// critical section, not for a queue's backlog, which keeps `GraphActor.sync` cheap when many
/// threads deliver results at once. What may run code of the app's (a loader's cancellation, a
/// decoder's session closing) is handed to `afterUnlock` and runs once the lock is released, so a
/// thread waiting for the lock never waits for the app's code.
final class GraphLock: @unchecked Sendable { // `deferred` is behind `lock`; `holder` is per thread
    private let lock = Lock()
    /// Marks the thread holding `lock`: a thread-specific value, set while it holds it.
    private let holder = ThreadMark()
    /// Work to run when the current holder releases the lock.
    private var deferred: [() -> Void] = []

    /// Whether the calling thread holds the lock.
    var isHeldByCurrentThread: Bool { holder.isSet }

    /// Runs `body` holding the lock, then what it handed to `afterUnlock`. The caller must not
    /// hold the lock already (it would wait for itself): that stops the process with a message.
    func run<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        precondition(!holder.isSet, "GraphActor.sync called on the graph's actor: it would wait for itself")
        let (result, after) = lock.locked { () -> (Result<T, E>, [() -> Void]) in
            holder.set(true)
            defer { holder.set(false) }
            let result = Result<T, E> { () throws(E) -> T in try body() }
            let after = deferred
            deferred = []
            return (result, after)
        }
        for work in after { work() }
        return try result.get()
    }

    /// Runs `work` on this thread once the lock is released; only while holding it.
    func afterUnlock(_ work: @escaping () -> Void) {
        precondition(holder.isSet, "afterUnlock outside the graph's actor")
        deferred.append(work)
    }
}
