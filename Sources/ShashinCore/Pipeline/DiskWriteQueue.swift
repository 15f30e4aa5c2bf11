import Foundation

/// Encodes and writes to the disk cache one job at a time, on a utility queue off every caller's
/// path: processed results after a load, and images the app stores (`storeCachedImage`). It
/// counts what waits, for `ImagePipeline.backgroundWorkCount`.
final class DiskWriteQueue: Sendable {
    private let queue = DispatchQueue(label: "shashin.disk-writes", qos: .utility)
    private let pending = Locked(0)

    /// Jobs enqueued and not yet finished.
    var pendingCount: Int { pending.current }

    /// Runs `work` after every job enqueued before it. A failed write costs a recomputation or a
    /// download next time, so `work` reports nothing.
    func enqueue(_ work: @escaping @Sendable () -> Void) {
        pending.withLock { $0 += 1 }
        queue.async { [pending] in
            defer { pending.withLock { $0 -= 1 } }
            work()
        }
    }

    /// Runs `work` after every job enqueued before it, and returns its result to the caller,
    /// who waits without holding a thread: removals that must follow the writes already queued.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            enqueue { continuation.resume(with: Result { try work() }) }
        }
    }
}
