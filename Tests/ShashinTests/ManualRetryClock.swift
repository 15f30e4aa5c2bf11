import Foundation
import Shashin

/// A `RetryClock` that never sleeps: its time moves only when a test calls `advance(by:)`, which
/// wakes the waits it reaches. It records every wait asked of it, and the waits cancelled.
final class ManualRetryClock: RetryClock, @unchecked Sendable { // `state` behind `lock`
    private struct Sleeper {
        let id: Int
        let deadline: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var sleepers: [Sleeper] = []
        var nextID = 0
        var requested: [TimeInterval] = []
        var cancelled = 0
        /// Ids cancelled before their continuation was registered.
        var cancelledEarly: Set<Int> = []
    }

    private let lock = NSLock()
    private var state: State

    init(start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        state = State(now: start)
    }

    private func locked<T>(_ body: (inout State) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }

    func now() -> Date { locked { $0.now } }

    /// Every wait asked for, in seconds, in order.
    var requested: [TimeInterval] { locked { $0.requested } }
    /// Waits in progress.
    var sleeperCount: Int { locked { $0.sleepers.count } }
    /// Waits ended by cancellation.
    var cancelledCount: Int { locked { $0.cancelled } }

    func sleep(for seconds: TimeInterval) async throws {
        let id = locked { state -> Int in
            state.requested.append(seconds)
            defer { state.nextID += 1 }
            return state.nextID
        }
        guard seconds > 0 else { return try Task.checkCancellation() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = locked { state -> Bool in
                    if state.cancelledEarly.remove(id) != nil { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: state.now.addingTimeInterval(seconds), continuation: continuation))
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let sleeper = locked { state -> Sleeper? in
                state.cancelled += 1
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelledEarly.insert(id)
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the time on by `seconds` and wakes every wait that has then ended.
    func advance(by seconds: TimeInterval) {
        let woken = locked { state -> [Sleeper] in
            state.now = state.now.addingTimeInterval(seconds)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }
}
