import ShashinCore

/// Counts what crossed the wire: connections and the protocol each negotiated, requests per path,
/// responses by status, authentication outcomes, responses in flight, body bytes written.
///
/// A response is in flight from the moment its request reaches the handler until its body has
/// been written completely, or the write was aborted (fault, client gone, server stopped).
final class TrafficLedger: Sendable {
    struct PathTraffic: Sendable {
        var requests = 0
        var bytesSent = 0
        var lastRequest: RecordedRequest?
        var statuses: [Int: Int] = [:]
        /// 401s sent because a request carried no valid credentials for the route.
        var challenges = 0
        /// Requests whose credentials the route accepted.
        var authenticated = 0
    }

    struct State: Sendable {
        var paths: [String: PathTraffic] = [:]
        var totalRequests = 0
        var inFlight = 0
        var maxInFlight = 0
        var bytesSent = 0
        var connectionsAccepted = 0
        /// Requests whose connection ``ConnectionDrops`` closed on purpose.
        var dropped = 0
        var secureConnectionsAccepted = 0
        var negotiated: [HTTPProtocol: Int] = [:]
        var openConnections = 0
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

    func addDrop() {
        state.withLock { $0.dropped += 1 }
    }

    func addResponse(status: Int, path: String) {
        state.withLock { $0.paths[path, default: PathTraffic()].statuses[status, default: 0] += 1 }
    }

    func addAuthentication(_ outcome: AuthenticationOutcome, path: String) {
        state.withLock { state in
            switch outcome {
            case .authenticated: state.paths[path, default: PathTraffic()].authenticated += 1
            case .challenge: state.paths[path, default: PathTraffic()].challenges += 1
            }
        }
    }

    /// Ends a response in flight, counting its last `count` body bytes in the same step, so no
    /// reader sees the body complete while the response is still in flight.
    func end(addingBytes count: Int = 0, path: String? = nil) {
        state.withLock { state in
            state.inFlight -= 1
            if count > 0, let path {
                state.bytesSent += count
                state.paths[path, default: PathTraffic()].bytesSent += count
            }
        }
    }

    func connectionOpened(secure: Bool) {
        state.withLock { state in
            state.connectionsAccepted += 1
            if secure { state.secureConnectionsAccepted += 1 }
            state.openConnections += 1
        }
    }

    func connectionClosed() {
        state.withLock { $0.openConnections -= 1 }
    }

    func negotiated(_ proto: HTTPProtocol) {
        state.withLock { $0.negotiated[proto, default: 0] += 1 }
    }

    /// Zeroes every counter and forgets recorded requests. Responses still in flight keep
    /// counting in ``State/inFlight`` (and ``State/maxInFlight`` restarts from them); connections
    /// still open keep counting in ``State/openConnections``.
    func reset() {
        state.withLock { state in
            state = State(inFlight: state.inFlight, maxInFlight: state.inFlight, openConnections: state.openConnections)
        }
    }
}
