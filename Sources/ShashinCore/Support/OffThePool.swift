import Dispatch

/// Runs blocking `work` (file I/O, fsync, SQLite) on `queue` and resumes with its result. Never
/// run such work on the Swift concurrency pool: its few threads (two on a two-core machine) are
/// shared by every async task, and one blocked thread halves the pool.
package func offThePool<T: Sendable>(on queue: DispatchQueue = .global(qos: .userInitiated),
                             _ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        queue.async { continuation.resume(with: Result { try work() }) }
    }
}

/// `offThePool` for work that reports its failure as a value.
package func offThePool<T: Sendable>(on queue: DispatchQueue = .global(qos: .userInitiated),
                             _ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        queue.async { continuation.resume(returning: work()) }
    }
}
