import Foundation
import NIOCore
import NIOPosix
import ShashinCore

/// A real HTTP server on 127.0.0.1 that serves generated images, files of a directory, and
/// scripted responses (headers, 304s, byte ranges, authentication, latency, bandwidth, faults),
/// and counts what it sent. It speaks HTTP/1.1 with keep-alive and, on an optional HTTPS listener
/// with a certificate made at start, HTTP/2 or HTTP/1.1 as ALPN decides. Built on SwiftNIO.
///
/// Tests, the demo and the benchmarks run it in-process; `shashin serve` runs it on its own.
///
/// Routes, in the order they are tried:
/// - a path registered with ``setRoute(_:_:)`` answers as its ``RouteScript`` says;
/// - `GET /gen/<seed>-<width>x<height>.<jpg|png|webp|gif>` serves a generated image (see
///   ``ImageSpec``), with `Cache-Control: public, max-age=86400`, an `ETag` and byte ranges;
/// - `GET /files/<relative path>` serves a file of `filesDirectory`, with `Last-Modified`, an
///   `ETag` and byte ranges; paths leaving the directory get 403;
/// - `GET /` lists the routes; anything else is 404.
///
/// ```swift
/// let server = ImageServer()
/// try await server.start()
/// server.setRoute("/avatar.jpg", .image(ImageSpec(format: .jpeg, width: 256, height: 256, seed: 1),
///                                       headers: ["Cache-Control": "max-age=60"]))
/// let (data, _) = try await URLSession.shared.data(from: server.url("/avatar.jpg"))
/// #expect(server.requestCount(for: "/avatar.jpg") == 1)
/// await server.stop()
/// ```
public final class ImageServer: Sendable {
    private struct Lifecycle: Sendable {
        var listener: (any Channel)?
        var secureListener: (any Channel)?
        /// Completed when the running server has stopped: what ``run()`` waits for.
        var stopped: EventLoopPromise<Void>?
        /// The ports bound now, or last bound: a restarted server binds them again.
        var boundPort: Int?
        var boundHTTPSPort: Int?
        var identity: TLSIdentity?
        var isStarting = false
    }

    private let requestedPort: Int
    private let requestedHTTPSPort: Int?
    private let handler: ScriptedHandler
    private let tasks = ResponseTasks()
    private let connections = ConnectionRegistry()
    private let lifecycle = Locked(Lifecycle())

    /// Creates a stopped server.
    /// - Parameters:
    ///   - port: The port to bind; 0 (default) lets the system choose a free one.
    ///   - filesDirectory: The directory served under `/files/`; `nil` (default) serves none.
    ///   - generator: Paints, encodes and caches generated images. Default: ``ImageGenerator/shared``.
    ///   - responseTimeout: The longest a route's latency may hold a request: a script whose
    ///     ``RouteScript/latency`` is this long or longer gets `500` after this wait. Default 600 s.
    ///   - httpsPort: Also listen for HTTPS on this port (0: a free one), with the same routes and
    ///     counters. `nil` (default): no HTTPS listener. See ``certificatePEM``.
    public init(port: Int = 0, filesDirectory: URL? = nil, generator: ImageGenerator = .shared,
                responseTimeout: TimeInterval = 600, httpsPort: Int? = nil) {
        self.requestedPort = port
        self.requestedHTTPSPort = httpsPort
        self.handler = ScriptedHandler(generator: generator, filesDirectory: filesDirectory,
                                       responseTimeout: .seconds(max(0, responseTimeout)))
    }

    deinit {
        // Without a `stop()` the listeners would outlive the server object.
        let state = lifecycle.current
        state.listener?.close(promise: nil)
        state.secureListener?.close(promise: nil)
        state.stopped?.succeed(())
    }

    // MARK: - Lifecycle

    /// Starts listening on 127.0.0.1 and returns once connections are accepted.
    ///
    /// Binds the `port` (and `httpsPort`) given to `init`; with 0, a free port the first time and
    /// the same port again after a ``stop()``, so URLs made before stay valid, unless another
    /// socket took it while the server was stopped: any port-0 bind or outgoing connection may take
    /// a port of the system's ephemeral range (32768–60999 on Linux by default), so a server that
    /// must come back on its port is given one below that range. The HTTPS certificate is made on
    /// the first start and kept. Does nothing when running.
    /// - Throws: The socket error when a port cannot be bound; nothing is left listening then.
    public func start() async throws {
        while true {
            let claim: (ports: (Int, Int?)?, busy: Bool) = lifecycle.withLock { state in
                if state.isStarting { return (nil, true) }
                guard state.listener == nil else { return (nil, false) }
                state.isStarting = true
                return ((state.boundPort ?? requestedPort, requestedHTTPSPort.map { state.boundHTTPSPort ?? $0 }), false)
            }
            if claim.busy {
                // Another caller is binding: return once it is done, like a call made after it.
                try await Task.sleep(for: .milliseconds(1))
                continue
            }
            guard let ports = claim.ports else { return }
            do {
                try await bind(port: ports.0, httpsPort: ports.1)
                return
            } catch {
                lifecycle.withLock { $0.isStarting = false }
                throw error
            }
        }
    }

    private func bind(port: Int, httpsPort: Int?) async throws {
        let services = Listener.Services(handler: handler, tasks: tasks, connections: connections)
        connections.accept()
        var identity = lifecycle.current.identity
        if httpsPort != nil, identity == nil { identity = try TLSIdentity.make() }
        let listener = try await Listener.bind(port: port, tls: nil, services: services)
        var secureListener: (any Channel)?
        if let httpsPort, let identity {
            do {
                secureListener = try await Listener.bind(port: httpsPort, tls: identity, services: services)
            } catch {
                try? await listener.close()
                throw error
            }
        }
        let stopped = listener.eventLoop.makePromise(of: Void.self)
        lifecycle.withLock { state in
            state.listener = listener
            state.secureListener = secureListener
            state.stopped = stopped
            state.boundPort = listener.localAddress?.port ?? port
            state.boundHTTPSPort = secureListener.map { $0.localAddress?.port ?? httpsPort ?? 0 }
            state.identity = identity
            state.isStarting = false
        }
    }

    /// Stops listening, closes every connection at once (stalled and throttled responses
    /// included), and returns when every connection is closed and every response task has
    /// ended. Does nothing when stopped. Counters and routes are kept; ``start()`` may be called
    /// again.
    public func stop() async {
        let (listener, secureListener, stopped) = lifecycle.withLock { state in
            defer { state.listener = nil; state.secureListener = nil; state.stopped = nil }
            return (state.listener, state.secureListener, state.stopped)
        }
        guard let listener else { return }
        try? await listener.close()
        try? await secureListener?.close()
        await connections.closeAll()
        await tasks.cancelAndWait()
        stopped?.succeed(())
    }

    /// Starts (unless running) and suspends until ``stop()`` is called or the calling task is
    /// cancelled, which stops the server: the body of `shashin serve`.
    public func run() async throws {
        try await start()
        guard let stopped = lifecycle.withLock({ $0.stopped }) else { return }
        await withTaskCancellationHandler {
            try? await stopped.futureResult.get()
        } onCancel: {
            Task { await self.stop() }
        }
    }

    /// Whether the server is listening.
    public var isRunning: Bool {
        lifecycle.withLock { $0.listener != nil }
    }

    /// The bound port once started (kept after ``stop()``); before the first start, the port
    /// given to `init`.
    public var port: Int {
        lifecycle.withLock { $0.boundPort ?? requestedPort }
    }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL {
        URL(string: "http://127.0.0.1:\(port)")!
    }

    /// The URL of `path` on this server, such as `url("/gen/7-640x480.jpg")`; a missing leading
    /// `/` is added. `path` may carry a query (`/a.jpg?v=2`).
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path.hasPrefix("/") ? "" : "/")\(path)")!
    }

    /// The URL of a generated image on this server.
    public func url(for spec: ImageSpec) -> URL {
        url(spec.path)
    }

    // MARK: - HTTPS

    /// The HTTPS port once started (kept after ``stop()``); before the first start, the
    /// `httpsPort` given to `init`; `nil` without HTTPS.
    public var httpsPort: Int? {
        guard let requestedHTTPSPort else { return nil }
        return lifecycle.withLock { $0.boundHTTPSPort ?? requestedHTTPSPort }
    }

    /// `https://127.0.0.1:<httpsPort>`, or `nil` without HTTPS.
    public var httpsBaseURL: URL? {
        httpsPort.map { URL(string: "https://127.0.0.1:\($0)")! }
    }

    /// The HTTPS URL of `path`, like ``url(_:)``; `nil` without HTTPS.
    public func httpsURL(_ path: String) -> URL? {
        httpsPort.map { URL(string: "https://127.0.0.1:\($0)\(path.hasPrefix("/") ? "" : "/")\(path)")! }
    }

    /// The HTTPS listener's self-signed certificate in PEM, for a client to trust (it names
    /// `127.0.0.1`, `::1` and `localhost`); `nil` before the first start or without HTTPS.
    ///
    /// ```swift
    /// let root = try NIOSSLCertificate(bytes: Array(server.certificatePEM!.utf8), format: .pem)
    /// tls.trustRoots = .certificates([root])
    /// ```
    public var certificatePEM: String? {
        lifecycle.withLock { $0.identity?.certificatePEM }
    }

    /// The same certificate in DER (for `SecCertificateCreateWithData` on Apple platforms).
    public var certificateDER: Data? {
        lifecycle.withLock { $0.identity?.certificateDER }
    }

    // MARK: - Conditions for unscripted routes

    /// The wait before answering `/gen/` and `/files/` requests. Default zero. Scripted routes
    /// use their own ``RouteScript/latency``.
    public var latency: Duration {
        get { handler.conditions.current.latency }
        set { handler.conditions.withLock { $0.latency = newValue } }
    }

    /// The bandwidth of each `/gen/` and `/files/` response, in bytes per second; `nil`
    /// (default) is unlimited. Scripted routes use their own ``RouteScript/bytesPerSecond``.
    public var bytesPerSecond: Int? {
        get { handler.conditions.current.bytesPerSecond }
        set { handler.conditions.withLock { $0.bytesPerSecond = newValue } }
    }

    /// How long a ``RouteScript/Fault/stall`` holds its connection at most when the server keeps
    /// running (the client leaving or ``stop()`` ends it at once). Default 60 seconds.
    public var stallLimit: Duration {
        get { handler.conditions.current.stallLimit }
        set { handler.conditions.withLock { $0.stallLimit = newValue } }
    }

    /// Drops a seeded fraction of the requests on every route, scripted or not (a route's own
    /// ``RouteScript/fault`` takes precedence), as a flaky network would; `nil` (default) drops
    /// none. See ``ConnectionDrops`` for which requests are dropped and where.
    ///
    /// ```swift
    /// server.connectionDrops = ConnectionDrops(rate: 0.05, seed: 1, points: [.midBody])
    /// ```
    public var connectionDrops: ConnectionDrops? {
        get { handler.conditions.current.drops }
        set { handler.conditions.withLock { $0.drops = newValue } }
    }

    /// The generator behind `/gen/` and ``RouteScript/Body/image(_:)``.
    public var generator: ImageGenerator {
        handler.generator
    }

    // MARK: - Scripted routes

    /// Makes `path` (without query; matched exactly) answer as `script` says, replacing what it
    /// answered before. Takes effect from the next request.
    public func setRoute(_ path: String, _ script: RouteScript) {
        handler.routes.withLock { $0[path] = .script(script) }
    }

    /// Makes `path` answer with a script computed for each request; the request's
    /// ``RecordedRequest/ordinal`` tells which one it is.
    ///
    /// ```swift
    /// server.setRoute("/flaky.jpg") { $0.ordinal == 1 ? .status(503) : .image(spec) }
    /// ```
    public func setRoute(_ path: String, responder: @escaping @Sendable (RecordedRequest) -> RouteScript) {
        handler.routes.withLock { $0[path] = .responder(responder) }
    }

    /// Changes the script of `path` in place, such as `updateRoute(p) { $0.status = 304 }`.
    /// A path without a script (or with a responder) starts from `RouteScript()`.
    public func updateRoute(_ path: String, _ change: (inout RouteScript) -> Void) {
        handler.routes.withLock { routes in
            var script = RouteScript()
            if case .script(let current) = routes[path] { script = current }
            change(&script)
            routes[path] = .script(script)
        }
    }

    /// The script of `path`, or `nil` when it has none (or has a responder).
    public func route(_ path: String) -> RouteScript? {
        guard case .script(let script) = handler.routes.withLock({ $0[path] }) else { return nil }
        return script
    }

    /// Removes the script of `path`; the path answers as unscripted again.
    public func removeRoute(_ path: String) {
        handler.routes.withLock { $0[path] = nil }
    }

    /// Removes every script.
    public func removeAllRoutes() {
        handler.routes.withLock { $0.removeAll() }
    }

    // MARK: - Accounting

    /// Requests received for `path` (without query) since the last ``resetCounters()``.
    public func requestCount(for path: String) -> Int {
        handler.ledger.current.paths[path]?.requests ?? 0
    }

    /// Requests received on every path since the last ``resetCounters()``.
    public var totalRequests: Int {
        handler.ledger.current.totalRequests
    }

    /// Responses in flight now: received, and their body not yet fully written or aborted
    /// (the latency wait counts).
    public var inFlight: Int {
        handler.ledger.current.inFlight
    }

    /// The most responses in flight at once since the last ``resetCounters()``.
    public var maxInFlight: Int {
        handler.ledger.current.maxInFlight
    }

    /// Body bytes the socket accepted, on every path, since the last ``resetCounters()``
    /// (headers not included).
    public var bytesSent: Int {
        handler.ledger.current.bytesSent
    }

    /// Body bytes the socket accepted for `path` since the last ``resetCounters()``.
    public func bytesSent(for path: String) -> Int {
        handler.ledger.current.paths[path]?.bytesSent ?? 0
    }

    /// The last request received for `path`, with its headers, or `nil` when none came since the
    /// last ``resetCounters()``.
    public func lastRequest(for path: String) -> RecordedRequest? {
        handler.ledger.current.paths[path]?.lastRequest
    }

    /// Responses sent for `path` with `status` (counted when the status line was written), such
    /// as `responseCount(for: "/big.jpg", status: 206)`.
    public func responseCount(for path: String, status: Int) -> Int {
        handler.ledger.current.paths[path]?.statuses[status] ?? 0
    }

    /// 401 challenges sent for `path` because a request had no valid credentials for its
    /// ``RouteScript/authentication`` (stale Digest nonces included).
    public func challengesSent(for path: String) -> Int {
        handler.ledger.current.paths[path]?.challenges ?? 0
    }

    /// Requests to `path` whose credentials its ``RouteScript/authentication`` accepted.
    public func authenticatedRequests(for path: String) -> Int {
        handler.ledger.current.paths[path]?.authenticated ?? 0
    }

    /// Ends every Digest nonce issued so far: the next request using one gets a new challenge
    /// with `stale=true` (when its credentials are otherwise right).
    public func expireNonces() {
        handler.authenticator.expireNonces()
    }

    /// TCP connections accepted on both listeners since the last ``resetCounters()``.
    public var connectionsAccepted: Int {
        handler.ledger.current.connectionsAccepted
    }

    /// Requests whose connection ``connectionDrops`` closed on purpose since the last
    /// ``resetCounters()``.
    public var droppedRequests: Int {
        handler.ledger.current.dropped
    }

    /// Connections accepted on the HTTPS listener since the last ``resetCounters()``.
    public var secureConnectionsAccepted: Int {
        handler.ledger.current.secureConnectionsAccepted
    }

    /// HTTPS connections whose TLS handshake settled on `proto` by ALPN, since the last
    /// ``resetCounters()`` (a client offering no ALPN counts as HTTP/1.1).
    public func connectionsNegotiated(_ proto: HTTPProtocol) -> Int {
        handler.ledger.current.negotiated[proto] ?? 0
    }

    /// Connections open now, on both listeners.
    public var openConnections: Int {
        handler.ledger.current.openConnections
    }

    /// Zeroes all counters and forgets recorded requests. Responses still in flight stay
    /// counted in ``inFlight``, open connections in ``openConnections``.
    public func resetCounters() {
        handler.ledger.reset()
    }
}
