import FlyingFox
import FlyingSocks
import Foundation
import ShashinCore

/// A real HTTP/1.1 server on 127.0.0.1 that serves generated images, files of a directory, and
/// scripted responses (headers, 304s, latency, bandwidth, faults), and counts what it sent.
///
/// Tests, the demo and the benchmarks run it in-process; `shashin serve` runs it on its own.
///
/// Routes, in the order they are tried:
/// - a path registered with ``setRoute(_:_:)`` answers as its ``RouteScript`` says;
/// - `GET /gen/<seed>-<width>x<height>.<jpg|png|webp|gif>` serves a generated image (see
///   ``ImageSpec``), with `Cache-Control: public, max-age=86400` and an `ETag`;
/// - `GET /files/<relative path>` serves a file of `filesDirectory`, with `Last-Modified` and
///   an `ETag`; paths leaving the directory get 403;
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
        var http: HTTPServer?
        var runTask: Task<Void, Never>?
        /// The port bound now, or last bound: a restarted server binds it again.
        var boundPort: Int?
        var isStarting = false
    }

    private let requestedPort: Int
    private let responseTimeout: TimeInterval
    private let handler: ScriptedHandler
    private let lifecycle = Locked(Lifecycle())

    /// Creates a stopped server.
    /// - Parameters:
    ///   - port: The port to bind; 0 (default) lets the system choose a free one.
    ///   - filesDirectory: The directory served under `/files/`; `nil` (default) serves none.
    ///   - generator: Paints, encodes and caches generated images. Default: ``ImageGenerator/shared``.
    ///   - responseTimeout: Seconds a request may take to get its response under way (a route's
    ///     latency and image encoding count; streaming the body does not). Default 600: generous.
    ///     Each request holds a timer of this length, which a finished request does not release on
    ///     Linux (a cancelled `Task.sleep` keeps its timer until the deadline), so a server answering
    ///     tens of thousands of requests in minutes (`shashin soak`) wants a short one.
    public init(port: Int = 0, filesDirectory: URL? = nil, generator: ImageGenerator = .shared,
                responseTimeout: TimeInterval = 600) {
        self.requestedPort = port
        self.responseTimeout = responseTimeout
        self.handler = ScriptedHandler(generator: generator, filesDirectory: filesDirectory)
    }

    deinit {
        // Without a `stop()` the listening task would outlive the server object.
        lifecycle.withLock { $0.runTask?.cancel() }
    }

    // MARK: - Lifecycle

    /// Starts listening on 127.0.0.1 and returns once connections are accepted.
    ///
    /// Binds the `port` given to `init`; with 0, a free port the first time and the same port
    /// again after a ``stop()``, so URLs made before stay valid. Does nothing when running.
    /// - Throws: The socket error when the port cannot be bound.
    public func start() async throws {
        while true {
            let claim: (port: Int?, busy: Bool) = lifecycle.withLock { state in
                if state.isStarting { return (nil, true) }
                guard state.http == nil else { return (nil, false) }
                state.isStarting = true
                return (state.boundPort ?? requestedPort, false)
            }
            if claim.busy {
                // Another caller is binding: return once it is done, like a call made after it.
                try await Task.sleep(for: .milliseconds(1))
                continue
            }
            guard let port = claim.port else { return }
            do {
                try await bindAndListen(port: port)
                return
            } catch {
                lifecycle.withLock { $0.isStarting = false }
                throw error
            }
        }
    }

    private func bindAndListen(port: Int) async throws {
        guard let port = UInt16(exactly: port) else { throw SocketError.unsupportedAddress }
        handler.isStopping.withLock { $0 = false }
        #if os(Linux)
        let pool = SocketPool(queue: DescriptorClosingEPoll(), logger: .disabled)
        #else
        let pool = HTTPServer.defaultPool()
        #endif
        let http = HTTPServer(
            address: try sockaddr_in.inet(ip4: "127.0.0.1", port: port),
            timeout: responseTimeout,
            pool: pool,
            logger: .disabled,
            handler: handler
        )
        let failure = Locked<(any Error)?>(nil)
        let runTask = Task {
            do {
                try await http.run()
            } catch {
                failure.withLock { $0 = error }
            }
        }
        // `waitUntilListening` would wait out its whole timeout if binding failed, so poll both.
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while await !http.isListening {
            if let error = failure.current { throw error }
            guard clock.now < deadline else {
                runTask.cancel()
                throw SocketError.timeout(message: "ImageServer did not start listening within 10 s")
            }
            try? await Task.sleep(for: .milliseconds(1))
        }
        guard case .ip4(_, let boundPort) = await http.listeningAddress else {
            await http.stop(timeout: 0)
            throw SocketError.unsupportedAddress
        }
        disableNagle(onSocketsOfPort: Int(boundPort))
        lifecycle.withLock { state in
            state.http = http
            state.runTask = runTask
            state.boundPort = Int(boundPort)
            state.isStarting = false
        }
    }

    /// Stops listening, closes every connection at once (stalled and throttled responses
    /// included) and returns when the server has wound down. Does nothing when stopped.
    /// Counters and routes are kept; ``start()`` may be called again.
    public func stop() async {
        let (http, runTask) = lifecycle.withLock { state in
            defer { state.http = nil; state.runTask = nil }
            return (state.http, state.runTask)
        }
        guard let http else { return }
        handler.isStopping.withLock { $0 = true }
        // Cancel first, close after: FlyingFox's own `stop` closes the listening socket while its
        // accept loop may still be running, and that loop can then call a blocking `accept` on the
        // descriptor number another server in the process has just been given (seen as a
        // restart on the same port hanging for minutes). Cancelling ends the accept loop and the
        // connections; `run` closes the socket only once they are over.
        runTask?.cancel()
        await runTask?.value
        await http.stop(timeout: 0)
    }

    /// Starts (unless running) and suspends until ``stop()`` is called or the calling task is
    /// cancelled, which stops the server: the body of `shashin serve`.
    public func run() async throws {
        try await start()
        guard let runTask = lifecycle.withLock({ $0.runTask }) else { return }
        await withTaskCancellationHandler {
            await runTask.value
        } onCancel: {
            Task { await self.stop() }
        }
    }

    /// Whether the server is listening.
    public var isRunning: Bool {
        lifecycle.withLock { $0.http != nil }
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
    /// running. Default 60 seconds.
    public var stallLimit: Duration {
        get { handler.conditions.current.stallLimit }
        set { handler.conditions.withLock { $0.stallLimit = newValue } }
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

    /// Zeroes all counters and forgets recorded requests. Responses still in flight stay
    /// counted in ``inFlight``.
    public func resetCounters() {
        handler.ledger.reset()
    }
}
