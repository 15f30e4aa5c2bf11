/// Where a `MemoryPressureMonitor` learns of memory pressure: `PSIMemoryPressureSource` on Linux,
/// or your own (tests inject one).
public protocol MemoryPressureSource: Sendable {
    /// Arms a trigger; throws `MemoryPressureUnavailable` when pressure cannot be watched here.
    func arm() throws -> any MemoryPressureTrigger
}

/// An armed pressure trigger, waited on by one dedicated thread.
public protocol MemoryPressureTrigger: Sendable {
    /// Blocks the calling thread until pressure crosses the threshold, `cancel()` is called, or
    /// the trigger fails. Called from the monitor's own thread, never from the Swift pool.
    func wait() -> MemoryPressureWait
    /// Makes the current and every later `wait()` return `.cancelled`; any thread, any number of times.
    func cancel()
    /// Releases the trigger's resources; called once, after the last `wait()` has returned.
    func close()
}

/// What ended a `MemoryPressureTrigger.wait()`.
public enum MemoryPressureWait: Sendable, Equatable {
    /// Pressure crossed the threshold.
    case pressure
    /// `cancel()` was called.
    case cancelled
    /// The trigger cannot be waited on any more; the reason, for the log.
    case failed(String)
}

/// Memory pressure cannot be watched: no PSI, or the trigger was refused. The reason is one line.
public struct MemoryPressureUnavailable: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is missing or was refused, with the file and the system's error.
    public var reason: String
    /// Creates the error.
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}
