import Foundation

/// Seconds spent in each stage of one request. Shared work reports its own duration to every
/// request that waited for it.
public struct ImageTimings: Sendable, Hashable {
    /// Waiting for a free slot in the network, decode and processing queues.
    public var queued: TimeInterval = 0
    /// Downloading (from the request going out to the last byte).
    public var network: TimeInterval = 0
    /// Reading the disk cache (a hit or a miss), outside the network queue.
    public var disk: TimeInterval = 0
    /// Decoding.
    public var decode: TimeInterval = 0
    /// Running processors.
    public var process: TimeInterval = 0
    /// From `loadImage` to the response, for the task that received it.
    public var total: TimeInterval = 0
    /// Download attempts made: 0 when no request went out (a cache answered), 1 for one
    /// download, more when the `RetryPolicy` tried again. `network` is the last attempt's time.
    public var attempts = 0

    /// All zero.
    public init() {}
}
