import Foundation

/// The mutual exclusion behind `GraphActor`: a lock that knows whether the current thread holds
/// it, so the actor's isolation can be checked (`GraphActor.assumeIsolated`, the executor's
/// `checkIsolated`) on any thread that runs the actor's work.
///
/// Held only for the graph's short bookkeeping. A thread that finds it taken waits for that one
/// critical section, not for a queue of them, which is what keeps `GraphActor.sync` cheap when
/// many threads deliver results at once.
final class GraphLock: @unchecked Sendable { // `lock` is the exclusion itself; `holder` is per thread
    private let lock = NSLock()
    /// Marks the thread holding `lock`: a thread-specific value, set while it holds it.
    private let holder: ThreadMark

    init() {
        holder = ThreadMark()
    }

    /// Whether the calling thread holds the lock.
    var isHeldByCurrentThread: Bool { holder.isSet }

    /// Runs `body` holding the lock. The caller must not hold it already (it would wait for
    /// itself): that stops the process with a message instead.
    func run<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        precondition(!holder.isSet, "GraphActor.sync called on the graph's actor: it would wait for itself")
        lock.lock()
        holder.set(true)
        defer {
            holder.set(false)
            lock.unlock()
        }
        return try body()
    }
}

/// A flag each thread has its own copy of (a POSIX thread-specific value).
private final class ThreadMark: @unchecked Sendable { // `key` is written once in init; the values are per thread
    private var key = pthread_key_t()

    init() {
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed: \(status)")
    }

    var isSet: Bool { pthread_getspecific(key) != nil }

    func set(_ value: Bool) {
        // Any non-nil pointer marks the thread; the value is never dereferenced.
        _ = pthread_setspecific(key, value ? UnsafeRawPointer(bitPattern: 1) : nil)
    }
}
