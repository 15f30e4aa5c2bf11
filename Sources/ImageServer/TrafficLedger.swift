import ShashinCore

/// Counts what crossed the wire: requests per path, responses in flight, body bytes written.
///
/// A response is in flight from the moment its request reaches the handler until its body has
/// been written completely, or the write was aborted (fault, client gone, server stopped).
final class TrafficLedger: Sendable {
    struct PathTraffic: Sendable {
        var requests = 0
        var bytesSent = 0
        var lastRequest: RecordedRequest?
    }

    struct State: Sendable {
        var paths: [String: PathTraffic] = [:]
        var totalRequests = 0
        var inFlight = 0
        var maxInFlight = 0
        var bytesSent = 0
    }

    private let state = Locked(State())

    var current: State { state.current }

    /// Records a request and opens its in-flight ticket; returns the record with its ordinal.
    func begin(_ request: RecordedRequest) -> (RecordedRequest, ResponseTicket) {
        let recorded = state.withLock { state in
            var request = request
            var traffic = state.paths[request.path] ?? PathTraffic()
            traffic.requests += 1
            request.ordinal = traffic.requests
            traffic.lastRequest = request
            state.paths[request.path] = traffic
            state.totalRequests += 1
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
            return request
        }
        return (recorded, ResponseTicket(ledger: self, path: request.path))
    }

    func addBytes(_ count: Int, path: String) {
        guard count > 0 else { return }
        state.withLock { state in
            state.bytesSent += count
            state.paths[path, default: PathTraffic()].bytesSent += count
        }
    }

    func end() {
        state.withLock { $0.inFlight -= 1 }
    }

    /// Zeroes every counter and forgets recorded requests. Responses still in flight keep
    /// counting in ``State/inFlight`` (and ``State/maxInFlight`` restarts from them).
    func reset() {
        state.withLock { state in
            state = State(inFlight: state.inFlight, maxInFlight: state.inFlight)
        }
    }
}
