import Foundation

extension ImageTask {
    /// A failed download attempt that will be tried again (`Event.retrying`), by the request's
    /// `RetryPolicy`.
    public struct Retry: Sendable {
        /// The attempt to come: 2 for the first retry.
        public let attempt: Int
        /// Why the attempt before it failed: a transient `ImagePipelineError` (a dropped
        /// connection, a timeout, a `5xx`, a `408`, a `429` with `Retry-After`).
        public let reason: any Error
        /// Seconds waited before the attempt starts: the jittered backoff, or the `Retry-After`.
        public let delay: TimeInterval
        /// Whether `delay` is the one the server asked for with `Retry-After`.
        public let isServerDelay: Bool

        /// Creates a description of a retry.
        public init(attempt: Int, reason: any Error, delay: TimeInterval, isServerDelay: Bool) {
            self.attempt = attempt
            self.reason = reason
            self.delay = delay
            self.isServerDelay = isServerDelay
        }
    }
}
