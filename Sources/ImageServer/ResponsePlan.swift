import Foundation

/// One response as the ``ScriptedHandler`` decided it: what ``ResponseWriter`` puts on the wire,
/// byte for byte, and how the exchange ends.
struct ResponsePlan: Sendable {
    /// What happens once ``body`` is all sent.
    enum Ending: Sendable, Equatable {
        /// The response is complete; the connection stays open for the next request.
        case complete
        /// The connection (an HTTP/2 stream: the stream, by `RST_STREAM`) is closed.
        case close
        /// The connection (an HTTP/2 stream: the stream) is closed before any byte of the response.
        case closeBeforeResponse
        /// Nothing more is sent until the server stops, the client leaves, or `limit` passes;
        /// then the connection closes.
        case stall(limit: Duration)
    }

    var status: Int
    /// In order; a name may repeat (one `WWW-Authenticate` per Digest algorithm).
    var headers: [(name: String, value: String)]
    /// The bytes sent as the body (after faults).
    var body: Data
    /// The `Content-Length` sent; `nil` sends the body chunked (HTTP/1.1) or unframed (HTTP/2).
    var declaredLength: Int?
    var ending: Ending = .complete
    /// `nil` sends as fast as the connection takes the bytes.
    var bytesPerSecond: Int?
    /// Where the body waits for the test; `nil` never waits.
    var gate: BodyGate? = nil

    /// A complete response with a short text body.
    static func text(_ status: Int, _ text: String, headers: [(name: String, value: String)] = []) -> ResponsePlan {
        let bytes = Data(text.utf8)
        return ResponsePlan(status: status,
                            headers: headers + [("Content-Type", "text/plain; charset=utf-8")],
                            body: bytes, declaredLength: bytes.count)
    }

    /// Makes this response break as `drop` says: closed before its first byte, or after the
    /// headers and `drop.bodyFraction` of the body (never all of it). A response without a body
    /// breaks before its first byte.
    mutating func drop(at drop: ConnectionDrops.Drop) {
        guard drop.point == .midBody, !body.isEmpty else {
            ending = .closeBeforeResponse
            return
        }
        body = body.prefix(min(body.count - 1, Int(Double(body.count) * drop.bodyFraction)))
        ending = .close
    }

    /// The value of the first header `name`, ignoring case.
    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}
