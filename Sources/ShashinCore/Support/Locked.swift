import Foundation

// The package's locking, one way per need:
// - `Locked<Value>` when one lock guards one value (a struct of fields, when they change together);
// - `Lock.locked { }` (Lock.swift) when a class's lock guards several stored properties that its
//   methods reach by name (`DiskStore`, `WorkQueue`, `GraphLock`);
// - `NSCondition`, through the same `locked { }`, where a thread waits for a change
//   (`DecodeMemoryBudget`);
// - a `DispatchSemaphore` where one thread waits for another to end (`MemoryPressureMonitor`'s
//   stop joins its thread).
// Every target of the package uses these, the AsyncHTTPClient loader included.
// No bare `lock()`/`unlock()` pairs: a closure cannot leave the lock held on an early exit.

/// A value behind a `Lock` (on Linux the standard library's `Mutex`, held inline; `NSLock` on
/// Apple platforms, where `Mutex` needs macOS 15 / iOS 18). `package`: the ImageServer keeps its
/// state in these too.
package final class Locked<Value>: @unchecked Sendable { // every access to `value` holds `lock`
    private let lock = Lock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, holding the lock; the error keeps its type.
    @discardableResult
    package func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        try lock.locked { () throws(E) -> R in try body(&value) }
    }

    package var current: Value { withLock { $0 } }
}

extension NSLocking {
    /// Runs `body` holding the lock; the error keeps its type (the SDK's `withLock` needs iOS 16 /
    /// macOS 13 and rethrows `any Error`).
    package func locked<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}
