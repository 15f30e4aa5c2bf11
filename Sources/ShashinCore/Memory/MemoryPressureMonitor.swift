import Foundation

/// Trims a memory cache when the system reports memory pressure: on Linux, a PSI trigger
/// (`PSIMemoryPressureSource`) waited on by a thread of the monitor's own, never a thread of the
/// Swift concurrency pool. Where pressure cannot be watched (no PSI, or the trigger is refused),
/// `start()` logs one line and the monitor does nothing else.
///
/// ```swift
/// let monitor = MemoryPressureMonitor(pipeline: pipeline)   // keep half the cache's bytes under pressure
/// monitor.start()
/// // ...
/// monitor.stop()                                            // joins its thread, closes its files
/// ```
///
/// On Apple platforms `MemoryCache` follows the system's memory warnings and pressure events by
/// itself; a monitor there needs a source of your own.
public final class MemoryPressureMonitor: Sendable {
    /// Receives the monitor's one-line messages; default: standard error.
    public typealias Log = @Sendable (String) -> Void

    private enum State {
        case idle
        case running(any MemoryPressureTrigger, finished: DispatchSemaphore)
        case unavailable(String)
        case stopped
    }

    /// How much each pressure event keeps.
    public let level: MemoryTrimLevel
    private let source: any MemoryPressureSource
    private let trim: @Sendable (MemoryTrimLevel) -> Void
    private let log: Log
    private let state = Locked(State.idle)
    private let events = Locked(0)
    /// Whether the monitor's thread has left its loop (stopped, or its trigger failed).
    private let threadEnded = Locked(false)

    /// A monitor that trims `cache` to `level` on each pressure event.
    /// - Parameters:
    ///   - level: what a pressure event keeps; default `.fraction(0.5)`.
    ///   - source: default `PSIMemoryPressureSource()` on Linux.
    ///   - log: where the monitor's one-line messages go; default standard error.
    public convenience init(cache: any MemoryTrimming, level: MemoryTrimLevel = .fraction(0.5),
                            source: any MemoryPressureSource = MemoryPressureMonitor.defaultSource,
                            log: @escaping Log = MemoryPressureMonitor.standardError) {
        self.init(level: level, source: source, log: log) { [weak cache] level in
            cache?.trim(level, reason: .pressure)
        }
    }

    /// A monitor that trims `pipeline`'s memory cache (`trimMemory(_:reason:)`) to `level` on
    /// each pressure event.
    public convenience init(pipeline: ImagePipeline, level: MemoryTrimLevel = .fraction(0.5),
                            source: any MemoryPressureSource = MemoryPressureMonitor.defaultSource,
                            log: @escaping Log = MemoryPressureMonitor.standardError) {
        self.init(level: level, source: source, log: log) { [weak pipeline] level in
            pipeline?.trimMemory(level, reason: .pressure)
        }
    }

    /// The monitor thread's name (at most 15 bytes, the kernel's limit); tests give their own.
    let threadName: String

    init(level: MemoryTrimLevel, source: any MemoryPressureSource, log: @escaping Log,
         threadName: String = "shashin-memory", trim: @escaping @Sendable (MemoryTrimLevel) -> Void) {
        self.level = level
        self.threadName = threadName
        self.source = source
        self.log = log
        self.trim = trim
    }

    deinit { stop() }

    /// The platform's source: `PSIMemoryPressureSource()` on Linux; elsewhere one that is never
    /// available (Apple platforms are followed by `MemoryCache` itself).
    public static var defaultSource: any MemoryPressureSource {
        #if os(Linux)
        return PSIMemoryPressureSource()
        #else
        return UnavailablePressureSource()
        #endif
    }

    /// Writes `message` and a newline to standard error.
    public static let standardError: Log = { message in
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    /// Arms the source and starts the monitor's thread; returns whether it is running. When the
    /// source cannot be armed, logs one line saying why and returns `false`; later calls do
    /// nothing. A stopped monitor does not start again.
    @discardableResult
    public func start() -> Bool {
        state.withLock { state in
            guard case .idle = state else {
                if case .running = state { return true }
                return false
            }
            let trigger: any MemoryPressureTrigger
            do {
                trigger = try source.arm()
            } catch {
                let reason = (error as? MemoryPressureUnavailable)?.reason ?? String(describing: error)
                state = .unavailable(reason)
                log("shashin: memory-pressure monitor off: \(reason)")
                return false
            }
            let finished = DispatchSemaphore(value: 0)
            state = .running(trigger, finished: finished)
            let thread = Thread { [trim, level, log, events, threadName, threadEnded] in
                Thread.current.name = threadName
                #if os(Linux)
                // Foundation names the system thread only when the new thread's handle is already
                // stored, which races with the thread's start: name it here, where it runs.
                try? Data(threadName.utf8).write(to: URL(fileURLWithPath: "/proc/thread-self/comm"))
                #endif
                loop: while true {
                    switch trigger.wait() {
                    case .pressure:
                        events.withLock { $0 += 1 }
                        trim(level)
                    case .cancelled:
                        break loop
                    case .failed(let reason):
                        log("shashin: memory-pressure monitor stopped: \(reason)")
                        break loop
                    }
                }
                threadEnded.withLock { $0 = true }
                finished.signal()
            }
            thread.stackSize = 256 << 10
            thread.start()
            return true
        }
    }

    /// Stops the monitor: wakes its thread, waits for it to end, and releases the trigger. Safe
    /// to call more than once. Do not call it from the monitor's own trim (it waits for that thread).
    public func stop() {
        let running = state.withLock { state -> (any MemoryPressureTrigger, DispatchSemaphore)? in
            switch state {
            case .running(let trigger, let finished):
                state = .stopped
                return (trigger, finished)
            case .idle:
                state = .stopped // a stopped monitor does not start
                return nil
            case .unavailable, .stopped:
                return nil
            }
        }
        guard let (trigger, finished) = running else { return }
        trigger.cancel()
        finished.wait()
        trigger.close()
    }

    /// Whether the monitor's thread is waiting for pressure: started, not stopped, and its
    /// trigger has not failed.
    public var isRunning: Bool {
        let started = state.withLock { if case .running = $0 { return true } else { return false } }
        return started && !threadEnded.current
    }

    /// Why the source could not be armed, after a `start()` that returned `false`.
    public var unavailableReason: String? {
        state.withLock { if case .unavailable(let reason) = $0 { return reason } else { return nil } }
    }

    /// Pressure events handled since `start()`.
    public var pressureEventCount: Int { events.current }
}

/// A source that is never available: the default where the platform has no PSI.
struct UnavailablePressureSource: MemoryPressureSource {
    func arm() throws -> any MemoryPressureTrigger {
        throw MemoryPressureUnavailable("no pressure stall information (PSI) on this platform")
    }
}
