import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOHTTP1
import NIOPosix
import ShashinCore

/// A `DataLoading` over AsyncHTTPClient (SwiftNIO): the default loader on Linux, where
/// `URLSession` is libcurl behind swift-corelibs-foundation and several times slower.
///
/// It behaves like `URLSessionDataLoader`, with the same errors: it streams the body, reporting
/// progress, and stops as soon as it passes the size limit (refused before reading when
/// `Content-Length` says so); it refuses statuses outside 200–299 without reading their body
/// (`loadResponse` delivers every status, for the HTTP cache); a body cut short of its
/// `Content-Length` is `truncatedData`; it follows at most `maxRedirects` redirects, only to
/// `http` and `https` and only to those the pipeline allows (`RedirectSchemes`); a whole download, body included, has `totalTimeout`, and a wait for a
/// byte the idle timeout; cancelling the calling task ends the request at once. Bodies arrive as sent: it asks for no compression and decodes none, so a
/// `Content-Encoding` it does not know is no error. `file:` and `data:` URLs go to
/// `LocalResourceLoader`. A body of more than 4 KB and up to 1 MB is a `Data` over a buffer that
/// goes back to a process-wide pool when the `Data` is freed (at most 4 MB kept idle), so the
/// next body is written into resident memory.
///
/// Pass the `HTTPClient` your app already has (a Vapor or Hummingbird app), or let the loader
/// make its own (on one event loop thread all such loaders share) and shut it down with
/// `shutdown()`:
///
/// ```swift
/// let loader = AsyncHTTPClientDataLoader(client: app.http.client.shared)
/// configuration.dataLoader = loader
/// ```
///
/// A client of your own keeps its own settings: give it `redirectConfiguration: .disallow` (as
/// `AsyncHTTPClientDataLoader.clientConfiguration()` does) so that redirects meet this loader's
/// limit and scheme check, and a read timeout for the idle limit.
public final class AsyncHTTPClientDataLoader: DataLoading, Sendable {
    /// One loader for every pipeline that does not configure its own; its client lives as long
    /// as the process.
    public static let shared = AsyncHTTPClientDataLoader()

    /// The client requests go through.
    public let client: HTTPClient
    /// The most redirects followed for one request; more fail with `tooManyRedirects`.
    public let maxRedirects: Int
    /// The longest a whole download may take, redirects included.
    public let totalTimeout: TimeAmount
    /// How long the loader's own client waits for a byte before failing; `nil` with a client
    /// passed in, whose read timeout applies.
    public let idleTimeout: TimeAmount?
    /// Where requests and redirects may connect; `.publicAddressesOnly` for a server loading
    /// URLs its users supply (see `DestinationPolicy` for what it does not cover).
    public let destinationPolicy: DestinationPolicy

    private let ownsClient: Bool
    /// The event loop every loader's own client runs on, requests and connections alike: one
    /// thread for the process that cannot be shut down (as NIO's shared group). On one loop each body
    /// part reaches the `ResponseCollector` on the thread that read it, so none waits in the client
    /// when a connection ends early; pinning requests to one loop of a larger group instead would
    /// let the pool open connections past its per-host limit (the limit is soft for pinned requests).
    static let eventLoopGroup = MultiThreadedEventLoopGroup._makePerpetualGroup(threadNamePrefix: "shashin-http-", numberOfThreads: 1)
    /// The fewest new bytes between two progress reports (the last one aside).
    static let progressStep = 16_384
    private let isShutDown = Locked(false)

    /// Creates a loader with its own client on the one event loop thread all loaders' own clients
    /// share: no redirects followed by the client (the loader follows them), no decompression.
    /// - Parameters:
    ///   - maxRedirects: the most redirects followed for one request (default 5).
    ///   - idleTimeout: the longest wait for a byte (default 60 s).
    ///   - totalTimeout: the longest a whole download may take (default 300 s), so that a server
    ///     trickling a byte a minute cannot hold a download slot for ever.
    ///   - maxConnectionsPerHost: HTTP/1.1 connections kept per host (default 16).
    ///   - destinationPolicy: where requests and redirects may connect (default `.unrestricted`).
    public init(maxRedirects: Int = 5, idleTimeout: TimeAmount = .seconds(60), totalTimeout: TimeAmount = .seconds(300),
                maxConnectionsPerHost: Int = 16, destinationPolicy: DestinationPolicy = .unrestricted) {
        client = HTTPClient(eventLoopGroup: Self.eventLoopGroup,
                            configuration: Self.clientConfiguration(idleTimeout: idleTimeout, maxConnectionsPerHost: maxConnectionsPerHost))
        ownsClient = true
        self.maxRedirects = maxRedirects
        self.idleTimeout = idleTimeout
        self.totalTimeout = totalTimeout
        self.destinationPolicy = destinationPolicy
    }

    /// Creates a loader over `client`, which the caller keeps and shuts down.
    /// - Parameters:
    ///   - maxRedirects: the most redirects followed for one request (default 5); applies to the
    ///     redirects the client hands back, which is all of them with `.disallow`.
    ///   - totalTimeout: the longest a whole download may take (default 300 s).
    ///   - destinationPolicy: where requests and redirects may connect (default `.unrestricted`).
    public init(client: HTTPClient, maxRedirects: Int = 5, totalTimeout: TimeAmount = .seconds(300),
                destinationPolicy: DestinationPolicy = .unrestricted) {
        self.client = client
        ownsClient = false
        self.maxRedirects = maxRedirects
        self.idleTimeout = nil
        self.totalTimeout = totalTimeout
        self.destinationPolicy = destinationPolicy
    }

    /// The configuration of the loader's own client: redirects handed back to the loader, no
    /// decompression, `idleTimeout` as the read timeout, 60 s before an idle pooled connection
    /// closes, and a connection that cannot be made failing its requests at once, as `URLSession`
    /// does (AsyncHTTPClient's default tries again until the 10 s connect timeout, so a host that
    /// refuses connections would hold every download slot for 10 s).
    public static func clientConfiguration(idleTimeout: TimeAmount = .seconds(60), maxConnectionsPerHost: Int = 16) -> HTTPClient.Configuration {
        var connectionPool = HTTPClient.Configuration.ConnectionPool(
            idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: maxConnectionsPerHost)
        connectionPool.retryConnectionEstablishment = false
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(10), read: idleTimeout),
            connectionPool: connectionPool,
            decompression: .disabled
        )
        configuration.httpVersion = .automatic
        return configuration
    }

    // The client must be shut down before it goes; a loader dropped without `shutdown()` starts
    // that here without waiting (the client stays alive until its pool has closed).
    deinit {
        guard ownsClient, !isShutDown.withLock({ $0 }) else { return }
        client.shutdown { _ in }
    }

    /// Closes the loader's own client: its pooled connections close and requests in flight
    /// fail. Does nothing for a client passed in, or after the first call. Never blocks a thread.
    public func shutdown() async throws {
        guard ownsClient else { return }
        let first = isShutDown.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        if first { try await client.shutdown() }
    }

    public func loadData(for request: URLRequest, maxBytes: Int,
                         progress: @escaping @Sendable (Int64, Int64) -> Void) async throws -> (Data, URLResponse) {
        try await load(request, maxBytes: maxBytes, acceptsAnyStatus: false, progress: progress)
    }

    /// Like `loadData`, but any status comes back with its body (a 304 with none).
    public func loadResponse(for request: URLRequest, maxBytes: Int,
                             progress: @escaping @Sendable (Int64, Int64) -> Void) async throws -> (Data, URLResponse) {
        try await load(request, maxBytes: maxBytes, acceptsAnyStatus: true, progress: progress)
    }

    private func load(_ request: URLRequest, maxBytes: Int, acceptsAnyStatus: Bool,
                      progress: @escaping @Sendable (Int64, Int64) -> Void) async throws -> (Data, URLResponse) {
        guard let url = request.url else { throw ImagePipelineError.invalidURL("") }
        switch url.scheme?.lowercased() {
        case "http", "https": break
        case "file", "data": return try await LocalResourceLoader().loadData(for: request, maxBytes: maxBytes, progress: progress)
        case let scheme: throw ImagePipelineError.unsupportedScheme(scheme ?? "")
        }
        let deadline = NIODeadline.now() + totalTimeout
        let observer = BodyObserver.current
        let redirectSchemes = RedirectSchemes.current
        var current = request
        var redirects = 0
        while true {
            try Task.checkCancellation()
            if destinationPolicy.refusesInternalAddresses, let target = current.url {
                // Before the first request and every redirect; getaddrinfo blocks: off the Swift pool.
                let policy = destinationPolicy
                try await offThePool { () throws -> Void in try policy.check(target) }
            }
            let collector = ResponseCollector(
                maxBytes: maxBytes, hasNoBody: current.httpMethod?.uppercased() == "HEAD",
                stopsAfterHead: { head in
                    RedirectRule.isRedirect(head) || !(acceptsAnyStatus || (200..<300).contains(head.status.code))
                },
                observer: observer, progress: progress)
            let clientRequest: HTTPClient.Request
            do { clientRequest = try Self.clientRequest(current) } catch {
                throw failure(error, received: 0, expected: -1, inBody: false, url: current.url)
            }
            let task = client.execute(request: clientRequest, delegate: collector,
                                      eventLoop: .indifferent,
                                      deadline: deadline, logger: nil)
            var ended: (any Error)?
            do {
                try await withTaskCancellationHandler { try await task.futureResult.get() } onCancel: { task.cancel() }
            } catch {
                ended = error
            }
            let outcome = collector.outcome
            guard let head = outcome.head else {
                throw failure(ended ?? HTTPClientError.remoteConnectionClosed, received: 0, expected: -1, inBody: false,
                              url: current.url)
            }
            let response = HTTPClientResponse(version: head.version, status: head.status, headers: head.headers)
            // A cancelled request ends as cancelled, whatever the collector decided; its bytes are kept below.
            let cancelled = ended != nil && Task.isCancelled
            if !cancelled, outcome.stop is ResponseCollector.StoppedAfterHead {
                // A redirect (its body is not read: the client closes that request), else a refused status.
                guard let next = try RedirectRule.next(after: response, to: current, allowed: redirectSchemes) else {
                    // Its `Retry-After`, for a pipeline that may retry.
                    if let url = current.url, let refused = try? Self.urlResponse(response, url: url) {
                        RetryPolicy.loaderDidRefuse(refused)
                    }
                    throw ImagePipelineError.httpStatus(Int(head.status.code))
                }
                redirects += 1
                guard redirects <= maxRedirects else { throw ImagePipelineError.tooManyRedirects(limit: maxRedirects) }
                current = next
                continue
            }
            if !cancelled, let stop = outcome.stop { throw stop }
            if let ended {
                let error = failure(ended, received: outcome.body.count, expected: outcome.expected, inBody: true, url: current.url)
                // The bytes so far, for a pipeline that may resume the download.
                if !outcome.body.isEmpty, let url = current.url, let partial = try? Self.urlResponse(response, url: url) {
                    ResumableData.loaderDidReceivePartialBody(outcome.body, response: partial, endedBy: error)
                }
                throw error
            }
            // The loader's own client never decompresses, so the count is of the bytes on the wire;
            // a client passed in may have decoded a Content-Encoding, and then the length is not ours.
            let isEncoded = head.headers.first(name: "Content-Encoding").map { $0.lowercased() != "identity" } ?? false
            if outcome.expected >= 0, ownsClient || !isEncoded, Int64(outcome.body.count) != outcome.expected {
                throw ImagePipelineError.truncatedData(expected: Int(outcome.expected), received: outcome.body.count)
            }
            return (outcome.body, try Self.urlResponse(response, url: current.url!))
        }
    }

    /// What an error of the client becomes: `CancellationError` when the task was cancelled,
    /// `truncatedData` when the body broke off before its announced length, else a typed error
    /// (a `URLError` names `url` as its failing URL).
    private func failure(_ error: any Error, received: Int, expected: Int64, inBody: Bool, url: URL?) -> any Error {
        if Task.isCancelled || error is CancellationError { return CancellationError() }
        if expected > 0, received < expected, ClientErrors.isBrokenBody(error) {
            return ImagePipelineError.truncatedData(expected: Int(expected), received: received)
        }
        return ClientErrors.pipelineError(from: error, inBody: inBody, idleTimeout: idleTimeout, totalTimeout: totalTimeout, url: url)
    }

    static func clientRequest(_ request: URLRequest) throws -> HTTPClient.Request {
        guard let url = request.url else { throw ImagePipelineError.invalidURL("") }
        var headers = HTTPHeaders()
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            headers.add(name: name, value: value)
        }
        let body = request.httpBody.flatMap { $0.isEmpty ? nil : HTTPClient.Body.bytes($0) }
        return try HTTPClient.Request(url: url.absoluteString, method: HTTPMethod(rawValue: request.httpMethod?.uppercased() ?? "GET"),
                                      headers: headers, body: body)
    }

    /// The Foundation response the pipeline and the HTTP cache read: repeated fields joined by
    /// commas (RFC 9110 §5.3).
    static func urlResponse(_ response: HTTPClientResponse, url: URL) throws -> HTTPURLResponse {
        var fields: [String: String] = [:]
        var names: [String: String] = [:] // lowercased name → the spelling first seen
        fields.reserveCapacity(response.headers.count)
        names.reserveCapacity(response.headers.count)
        for (name, value) in response.headers {
            let lowercased = name.lowercased()
            if let key = names[lowercased] {
                fields[key, default: ""] += ", \(value)"
            } else {
                names[lowercased] = name
                fields[name] = value
            }
        }
        let version = switch (response.version.major, response.version.minor) {
        case (1, 1): "HTTP/1.1"
        case (2, _): "HTTP/2"
        case let (major, minor): "HTTP/\(major)" + (major == 1 ? ".\(minor)" : "")
        }
        guard let result = HTTPURLResponse(url: url, statusCode: Int(response.status.code), httpVersion: version, headerFields: fields) else {
            throw URLError.failure(.badServerResponse, "Unreadable response from \(url.host ?? "")", url: url)
        }
        return result
    }
}

extension AsyncHTTPClientDataLoader: ReusableMemoryHolding {
    /// Frees the idle body buffers of the process-wide pool (`ImagePipeline.trimMemory` calls it).
    package func releaseReusableMemory() {
        BodyBufferPool.shared.drain()
    }
}
