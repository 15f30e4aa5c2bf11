import Foundation

/// A value behind an `NSLock` (`Mutex` needs macOS 15 / iOS 18; we support older systems).
/// `package`: the ImageServer keeps its state in these too.
package final class Locked<Value>: @unchecked Sendable { // every access to `value` holds `lock`
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    @discardableResult
    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    package var current: Value { withLock { $0 } }
}

extension NSLock {
    /// `withLock` for systems older than the SDK's own (iOS 16 / macOS 13).
    func locked<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}
