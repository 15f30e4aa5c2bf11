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
/// pipeline's own cost per cold request"), and tells ThreadSanitizer the order it makes
/// (`ThreadSanitizer` below). Elsewhere it is `NSLock`: `Mutex` needs macOS 15 / iOS 18.
#if os(Linux)
package typealias Lock = Mutex<Void>

extension Mutex where Value == Void {
    package init() { self.init(()) }

    /// Runs `body` holding the lock; the error keeps its type.
    @inline(__always)
    package func locked<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        var result: R?
        try withLock { (_: inout Void) throws(E) -> Void in
            guard let annotations = ThreadSanitizer.annotations else {
                result = try body()
                return
            }
            let address = ThreadSanitizer.address(of: self)
            annotations.acquire(address)
            defer { annotations.release(address) }
            result = try body()
        }
        return result!
    }
}

/// ThreadSanitizer's annotations, found at run time: present only in a process built with
/// `-sanitize=thread`, `nil` otherwise. `Mutex` takes a contended lock in the kernel
/// (`FUTEX_LOCK_PI`), where ThreadSanitizer cannot see that it orders the two holders; `Lock`
/// tells it, as a pthread mutex's interceptors would.
enum ThreadSanitizer {
    typealias Annotation = @convention(c) (UnsafeRawPointer?) -> Void

    /// Both annotations, or `nil` outside a ThreadSanitizer build.
    static let annotations: (acquire: Annotation, release: Annotation)? = {
        // RTLD_DEFAULT (a null handle): the executable and every library loaded.
        guard let acquire = dlsym(nil, "__tsan_acquire"), let release = dlsym(nil, "__tsan_release") else { return nil }
        return (unsafeBitCast(acquire, to: Annotation.self), unsafeBitCast(release, to: Annotation.self))
    }()

    /// An address standing for the lock: the same for every holder.
    static func address(of lock: borrowing Mutex<Void>) -> UnsafeRawPointer {
        withUnsafePointer(to: lock) { UnsafeRawPointer($0) }
    }
}
#else
package typealias Lock = NSLock
#endif
