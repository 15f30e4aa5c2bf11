import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ShashinCore

/// A `DataLoading` that answers every request at once from a closure and records what it was
/// asked: for testing what a cache sends and does with the answers.
final class ScriptedHTTPLoader: DataLoading, @unchecked Sendable { // `state` behind its lock
    struct Answer {
        var status = 200
        var headers: [String: String] = [:]
        var body = Data()
        var error: (any Error)?
    }

    private struct State {
        var answer: @Sendable (URLRequest) -> Answer
        var requests: [URLRequest] = []
    }

    private let state: Locked<State>

    init(_ answer: @escaping @Sendable (URLRequest) -> Answer) {
        state = Locked(State(answer: answer))
    }

    /// Replaces how requests are answered from now on.
    func answer(_ answer: @escaping @Sendable (URLRequest) -> Answer) {
        state.withLock { $0.answer = answer }
    }

    var requests: [URLRequest] { state.withLock { $0.requests } }
    var lastRequest: URLRequest? { requests.last }

    func loadData(for request: URLRequest, maxBytes: Int,
                  progress: @escaping @Sendable (Int64, Int64) -> Void) async throws -> (Data, URLResponse) {
        let (data, response) = try await loadResponse(for: request, maxBytes: maxBytes, progress: progress)
        let status = (response as! HTTPURLResponse).statusCode
        guard (200..<300).contains(status) else { throw ImagePipelineError.httpStatus(status) }
        return (data, response)
    }

    func loadResponse(for request: URLRequest, maxBytes: Int,
                      progress: @escaping @Sendable (Int64, Int64) -> Void) async throws -> (Data, URLResponse) {
        let answer = state.withLock { state -> Answer in
            state.requests.append(request)
            return state.answer(request)
        }
        if let error = answer.error { throw error }
        let response = HTTPURLResponse(url: request.url!, statusCode: answer.status, httpVersion: "HTTP/1.1",
                                       headerFields: answer.headers)!
        return (answer.status == 304 ? Data() : answer.body, response)
    }
}

/// A clock tests move by hand.
final class TestClock: Sendable {
    private let time: Locked<Date>
    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) { time = Locked(start) }
    var now: Date { time.current }
    func advance(_ seconds: TimeInterval) { time.withLock { $0 += seconds } }
}
