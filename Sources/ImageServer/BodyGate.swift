import Foundation
import ShashinCore

/// Holds a scripted body at chosen byte offsets until the test lets it go on, so a client receives
/// it in parts whose boundaries the test decides (the scans of a progressive JPEG, one at a time),
/// whatever the machine's speed.
///
/// The server sends the body up to the first stop, waits there until ``release()``, sends on to
/// the next stop, and so on; the bytes after the last stop go once it is released. Stops at or
/// past the body's end are ignored. One gate serves one response: give each request its own.
///
/// ```swift
/// let gate = BodyGate(stops: [1_000, 5_000])
/// var script = RouteScript.data(jpeg)
/// script.bodyGate = gate
/// server.setRoute("/p.jpg", script)
/// // … once the client has done what it does with the first 1,000 bytes:
/// gate.release()
/// ```
public final class BodyGate: Sendable {
    /// The byte offsets the body stops at, ascending.
    public let stops: [Int]

    private struct State {
        var released = 0
        var reached = 0
        var waiters: [Int: (stop: Int, continuation: CheckedContinuation<Void, any Error>)] = [:]
        var nextWaiter = 0
    }

    private let state = Locked(State())

    /// Creates a gate stopping at `stops` (sorted and made unique here).
    public init(stops: [Int]) {
        self.stops = Array(Set(stops.filter { $0 > 0 })).sorted()
    }

    /// How many stops the body has reached so far (waiting at one counts).
    public var reachedStops: Int { state.withLock { $0.reached } }

    /// Lets the body go on past the next stop.
    public func release() { release(count: 1) }

    /// Lets the body go on to its end.
    public func releaseAll() { release(count: stops.count) }

    private func release(count: Int) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.released = min(stops.count, state.released + count)
            let released = state.released
            let ready = state.waiters.filter { $0.value.stop < released }
            for id in ready.keys { state.waiters[id] = nil }
            return ready.values.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    /// Waits (cancellably) until stop number `index` is released.
    func pass(stop index: Int) async throws {
        let id = state.withLock { state -> Int in
            state.reached = max(state.reached, index + 1)
            state.nextWaiter += 1
            return state.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let isOpen = state.withLock { state -> Bool in
                    if Task.isCancelled || index < state.released { return true }
                    state.waiters[id] = (index, continuation)
                    return false
                }
                if isOpen { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }
}
