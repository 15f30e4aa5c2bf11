import Foundation

/// What a `RetryPolicy` reads the time from and waits with between attempts. Inject your own to
/// test retries without waiting; the pipeline cancels a wait whose download nobody wants any more,
/// and `sleep` then throws `CancellationError` at once.
public protocol RetryClock: Sendable {
    /// The current time: the start of `RetryPolicy.maxTotalTime`, and what an HTTP date in
    /// `Retry-After` is measured from.
    func now() -> Date
    /// Returns after `seconds`, or throws `CancellationError` as soon as the calling task is cancelled.
    func sleep(for seconds: TimeInterval) async throws
}

/// The real clock: `Date()` and `Task.sleep`.
public struct SystemRetryClock: RetryClock {
    /// The system clock.
    public init() {}

    public func now() -> Date { Date() }

    public func sleep(for seconds: TimeInterval) async throws {
        guard seconds > 0 else { return try Task.checkCancellation() }
        try await Task.sleep(nanoseconds: UInt64(min(seconds, 86_400) * 1e9))
    }
}
