import Foundation
#if os(Linux)
import Synchronization
#endif

/// The package's mutual exclusion for short critical sections, held inline by its owner (no
/// allocation of its own on Linux); entered with `locked { }`.
///
/// On Linux it is the standard library's `Mutex`, which spins a little before it sleeps in the
/// kernel: the pipeline's sections last well under a microsecond, and a thread that finds one
/// held gets it sooner by spinning than by a futex sleep and wake-up (BENCHMARKS.md, "The
/// pipeline's own cost per cold request"). Elsewhere it is `NSLock`: `Mutex` needs macOS 15 /
/// iOS 18.
#if os(Linux)
package typealias Lock = Mutex<Void>

extension Mutex where Value == Void {
    package init() { self.init(()) }

    /// Runs `body` holding the lock; the error keeps its type.
    @inline(__always)
    package func locked<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        var result: R?
        try withLock { (_: inout Void) throws(E) -> Void in result = try body() }
        return result!
    }
}
#else
package typealias Lock = NSLock
#endif
