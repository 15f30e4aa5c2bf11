import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import ShashinCore

/// A `DataLoading` double that holds every load until the test answers it, so tests control
/// exactly when downloads start and end. It records the order loads started and which were
/// cancelled.
final class ControlledDataLoader: DataLoading, @unchecked Sendable { // `state` behind its lock
    struct Pending {
        let url: URL
        let request: URLRequest
        let continuation: CheckedContinuation<(Data, URLResponse), any Error>
        let progress: @Sendable (Int64, Int64) -> Void
    }

    private struct State {
        var pending: [Int: Pending] = [:]
        var nextID = 0
        var started: [URL] = []
        var cancelled: [URL] = []
        var autoRespond: (@Sendable (URL) -> Result<Data, any Error>)?
    }

    private let state = Locked(State())

    /// Answers every load at once with `respond(url)` instead of holding it.
    init(autoRespond: (@Sendable (URL) -> Result<Data, any Error>)? = nil) {
        state.withLock { $0.autoRespond = autoRespond }
    }

    var startedURLs: [URL] { state.withLock { $0.started } }
    var cancelledURLs: [URL] { state.withLock { $0.cancelled } }
    var startCount: Int { state.withLock { $0.started.count } }
    var pendingURLs: [URL] { state.withLock { $0.pending.sorted { $0.key < $1.key }.map(\.value.url) } }
    var lastRequest: URLRequest? { state.withLock { $0.pending.values.first?.request } }

    func loadData(for request: URLRequest, maxBytes: Int,
                  progress: @escaping @Sendable (Int64, Int64) -> Void) async throws -> (Data, URLResponse) {
        let url = request.url!
        if let respond = state.withLock({ state -> (@Sendable (URL) -> Result<Data, any Error>)? in
            state.started.append(url)
            return state.autoRespond
        }) {
            let data = try respond(url).get()
            return (data, HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: nil)!)
        }
        let id = state.withLock { state -> Int in state.nextID += 1; return state.nextID }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                state.withLock { $0.pending[id] = Pending(url: url, request: request, continuation: continuation, progress: progress) }
                if Task.isCancelled { cancel(id) }
            }
        } onCancel: {
            cancel(id)
        }
    }

    private func cancel(_ id: Int) {
        guard let pending = state.withLock({ state -> Pending? in
            let pending = state.pending.removeValue(forKey: id)
            if let pending { state.cancelled.append(pending.url) }
            return pending
        }) else { return }
        pending.continuation.resume(throwing: CancellationError())
    }

    /// Answers the oldest pending load of `url` (waiting for it to arrive).
    func respond(to url: URL, with data: Data, status: Int = 200) async throws {
        let pending = try await waitForPending(url)
        pending.progress(Int64(data.count / 2), Int64(data.count))
        let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: nil)!
        pending.continuation.resume(returning: (data, response))
    }

    /// Reports `completed` of `total` bytes for the oldest pending load of `url` (waiting for it
    /// to arrive), leaving it pending.
    func reportProgress(to url: URL, completed: Int64, total: Int64) async throws {
        var found: Pending?
        try await eventually {
            found = self.state.withLock { state in
                state.pending.sorted(by: { $0.key < $1.key }).first(where: { $0.value.url == url })?.value
            }
            return found != nil
        }
        found!.progress(completed, total)
    }

    /// Fails the oldest pending load of `url`.
    func fail(_ url: URL, with error: any Error) async throws {
        try await waitForPending(url).continuation.resume(throwing: error)
    }

    /// Waits until `count` loads are held.
    func waitForPendingCount(_ count: Int) async throws {
        try await eventually { self.state.withLock { $0.pending.count } >= count }
    }

    private func waitForPending(_ url: URL) async throws -> Pending {
        var found: Pending?
        try await eventually {
            found = self.state.withLock { state in
                guard let (id, pending) = state.pending.sorted(by: { $0.key < $1.key }).first(where: { $0.value.url == url }) else { return nil }
                state.pending[id] = nil
                return pending
            }
            return found != nil
        }
        return found!
    }
}

struct TimedOut: Error, CustomStringConvertible {
    let description: String
}

/// Polls `condition` until it holds; fails after `timeout` seconds (generous: the stress test may
/// share the two cores meanwhile). For waiting on work that runs
/// on other threads, never for measuring time.
func eventually(timeout: TimeInterval = 30, _ condition: @escaping () -> Bool,
                file: String = #fileID, line: Int = #line) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() > deadline { throw TimedOut(description: "condition not met at \(file):\(line)") }
        try await Task.sleep(nanoseconds: 1_000_000)
    }
}
