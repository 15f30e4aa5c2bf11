import Foundation

/// A value that several tasks read and write, guarded by one lock.
///
/// Every mutable object of this module keeps its state in one of these, so "which lock protects
/// this?" always has a one-word answer.
final class Protected<Value: Sendable>: @unchecked Sendable {  // `value` is only touched while holding `lock`
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value; keep it short and never `await` inside.
    @discardableResult
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the current value.
    var current: Value {
        withLock { $0 }
    }
}
