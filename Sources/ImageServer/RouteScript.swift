import Foundation

/// What an ``ImageServer`` answers on one scripted path: status, body, headers, timing and faults.
///
/// Scripts are plain values: register one with ``ImageServer/setRoute(_:_:)`` and change it at any
/// time (the next request sees the change).
///
/// ```swift
/// var script = RouteScript.image(ImageSpec(format: .jpeg, width: 800, height: 600, seed: 1),
///                                headers: ["Cache-Control": "max-age=60", "ETag": "\"v1\""])
/// script.latency = .milliseconds(150)
/// server.setRoute("/photo.jpg", script)
/// server.updateRoute("/photo.jpg") { $0.fault = .dropConnectionMidBody }
/// ```
public struct RouteScript: Sendable {
    /// Where a response's bytes come from.
    public enum Body: Sendable {
        /// These exact bytes.
        case data(Data)
        /// A generated image (encoded once, then cached by the server's ``ImageGenerator``).
        case image(ImageSpec)
    }

    /// A way for a response to go wrong on purpose.
    public enum Fault: Sendable, Hashable, CaseIterable {
        /// Answer `500 Internal Server Error` with a short text body instead of the script's body.
        case status500
        /// Send the headers with the full `Content-Length`, then the first half of the body, then
        /// close the connection.
        case dropConnectionMidBody
        /// Send the whole body but declare a `Content-Length` one eighth longer (at least one
        /// byte more), then close: the client receives fewer bytes than it was promised.
        case shortBody
        /// Send the headers, then nothing, until the server stops or its
        /// ``ImageServer/stallLimit`` passes; then close the connection. A client that gives up
        /// earlier sees a timeout. Never delays ``ImageServer/stop()``.
        case stall
    }

    /// The status code. Default 200. With 1xx, 204 and 304 no body is sent.
    public var status: Int
    /// The body. Default: empty.
    public var body: Body
    /// Extra response headers, such as `Cache-Control`, `ETag`, `Last-Modified`, `Expires`, `Vary`
    /// or `Content-Type` (which otherwise comes from the body: the image's type, a sniffed image
    /// format, or `application/octet-stream`). A `Date` header is added unless given here.
    /// `Content-Length` is always computed.
    public var headers: [String: String]
    /// How long the server waits after receiving the request before answering. Default zero.
    public var latency: Duration
    /// The most body bytes per second the server sends, streaming the body in small chunks;
    /// `nil` (default) sends as fast as the socket takes them.
    public var bytesPerSecond: Int?
    /// A fault to inject, or `nil` (default) for a well-formed response.
    public var fault: Fault?
    /// Whether a `GET` or `HEAD` whose `If-None-Match` matches the `ETag` header (or, without
    /// `If-None-Match`, whose `If-Modified-Since` is no earlier than `Last-Modified`) gets
    /// `304 Not Modified` instead of a 200. Default `true`.
    public var answersConditionalRequests: Bool

    /// Whether the response declares its `Content-Length`. With `false` the body is sent with
    /// chunked transfer encoding (over HTTP/2: in DATA frames without a declared length), so a
    /// client learns its size only by reading it. Default `true`.
    public var sendsContentLength = true

    /// Whether a `GET` with `Range: bytes=...` gets just those bytes (RFC 9110 §14): `206 Partial
    /// Content` with `Content-Range`, or `416 Range Not Satisfiable` with `Content-Range: bytes */N`
    /// when no byte of the range exists. `If-Range` is honoured: a strong `ETag` (strong
    /// comparison) or the exact `Last-Modified` date; otherwise the whole body comes with a 200.
    /// One range per request; a request for several gets the whole body. Responses then carry
    /// `Accept-Ranges: bytes`. Faults apply to the part sent. Default `false`: `Range` is
    /// ignored, and `Accept-Ranges` is sent only if ``headers`` has it.
    public var servesRanges = false

    /// Stops the body at chosen byte offsets until the test releases each one (see
    /// ``BodyGate``); `nil` (default) sends it without stopping. Applies with or without
    /// ``bytesPerSecond``.
    public var bodyGate: BodyGate?

    /// The credentials the route demands, or `nil` (default) for none. See ``Authentication``.
    public var authentication: Authentication?

    /// Creates a script; every parameter has the default its property documents.
    public init(status: Int = 200,
                body: Body = .data(Data()),
                headers: [String: String] = [:],
                latency: Duration = .zero,
                bytesPerSecond: Int? = nil,
                fault: Fault? = nil,
                answersConditionalRequests: Bool = true) {
        self.status = status
        self.body = body
        self.headers = headers
        self.latency = latency
        self.bytesPerSecond = bytesPerSecond
        self.fault = fault
        self.answersConditionalRequests = answersConditionalRequests
    }

    /// A 200 that serves a generated image.
    public static func image(_ spec: ImageSpec, headers: [String: String] = [:]) -> RouteScript {
        RouteScript(body: .image(spec), headers: headers)
    }

    /// A 200 that serves `data`, with `contentType` when given.
    public static func data(_ data: Data, contentType: String? = nil, headers: [String: String] = [:]) -> RouteScript {
        var headers = headers
        if let contentType { headers["Content-Type"] = contentType }
        return RouteScript(body: .data(data), headers: headers)
    }

    /// A response with `status` and an optional text body, such as `.status(404)`.
    public static func status(_ status: Int, text: String = "") -> RouteScript {
        RouteScript(status: status, body: .data(Data(text.utf8)),
                    headers: text.isEmpty ? [:] : ["Content-Type": "text/plain; charset=utf-8"])
    }

    /// Reads a header of this script by name, ignoring case.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}
