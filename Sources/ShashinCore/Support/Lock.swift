#if os(Linux)
import Synchronization
#else
import Foundation
#endif

/// The package's mutual exclusion for short critical sections.
///
/// On Linux it is the standard library's `Mutex`, which spins a little before it sleeps in the
/// kernel: the pipeline's sections last well under a microsecond, and a thread that finds one
/// held gets it sooner by spinning than by a futex sleep and wake-up (the pipeline's own cost per
/// request fell by a quarter; BENCHMARKS.md, "The pipeline's own cost per cold request").
/// Elsewhere it is `NSLock`: `Mutex` needs macOS 15 / iOS 18, and Apple's lock already spins.
package final class Lock: Sendable {
#if os(Linux)
    private let mutex = Mutex(())
#else
    private let lock = NSLock()
#endif

    package init() {}

    /// Runs `body` holding the lock; the error keeps its type.
    @inline(__always)
    package func locked<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
#if os(Linux)
        var result: R?
        try mutex.withLock { (_: inout Void) throws(E) -> Void in result = try body() }
        return result!
#else
        lock.lock()
        defer { lock.unlock() }
        return try body()
#endif
    }
}
