import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Shashin
@testable import ShashinCore
import ShashinAsyncHTTPClient
import Testing

/// The loaders against a server that writes exact bytes: bodies delivered as sent, framing and
/// hostile answers, hop-by-hop fields, and cancelling many downloads at once.
///
/// Some cases run on the AsyncHTTPClient loader only: URLSession on Linux (libcurl) fails an
/// unknown coding, passes interim 1xx responses on as the response, and never completes a 401
/// with a challenge (FIELD-NOTES, "Networking on Linux").
@Suite("Loaders on the wire")
struct LoaderWireTests {
    static func body(_ count: Int, seed: UInt8 = 7) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    }

    static func load(_ kind: LoaderFactory, _ url: URL, maxBytes: Int = 1 << 20) async throws -> (Data, URLResponse) {
        let loader = kind.make()
        defer { Task { try? await shutDown(loader) } }
        return try await loader.loadData(for: URLRequest(url: url), maxBytes: maxBytes) { _, _ in }
    }

    @Test("a body with an unknown or unasked-for Content-Encoding arrives byte-exact", arguments: [LoaderFactory.asyncHTTPClient])
    func unknownContentEncoding(kind: LoaderFactory) async throws {
        let body = Self.body(5_000)
        let server = try RawHTTPServer { head in
            let coding = head.contains("/gzip") ? "gzip" : "x-shashin-private"
            return .init(bytes: RawHTTPServer.response([("Content-Encoding", coding), ("Content-Length", "\(body.count)")], body: body))
        }
        defer { server.stop() }
        for path in ["/private", "/gzip"] {
            let (data, response) = try await Self.load(kind, server.url(path))
            #expect(data == body, "\(path)")
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
        }
    }

    @Test("a body with an unknown Transfer-Encoding arrives byte-exact, read to the close or de-chunked", arguments: [LoaderFactory.asyncHTTPClient])
    func unknownTransferEncoding(kind: LoaderFactory) async throws {
        let body = Self.body(7_000, seed: 3)
        let server = try RawHTTPServer { head in
            if head.contains("/then-chunked") {
                return .init(bytes: RawHTTPServer.response([("Transfer-Encoding", "x-shashin, chunked")], body: RawHTTPServer.chunked(body)))
            }
            // Not ending in chunked: the body runs to the close (RFC 9112 §6.3).
            return .init(bytes: RawHTTPServer.response([("Transfer-Encoding", "x-shashin")], body: body), closes: true)
        }
        defer { server.stop() }
        for path in ["/until-close", "/then-chunked"] {
            let (data, _) = try await Self.load(kind, server.url(path))
            #expect(data == body, "\(path)")
        }
    }

    @Test("interim 1xx responses are skipped: the final response is delivered", arguments: LoaderFactory.all)
    func interimResponses(kind: LoaderFactory) async throws {
        let body = Self.body(300)
        let server = try RawHTTPServer { _ in
            .init(bytes: RawHTTPServer.response(status: "103 Early Hints", [("Link", "</style.css>; rel=preload")])
                + RawHTTPServer.response(status: "100 Continue", [])
                + RawHTTPServer.response([("Content-Length", "\(body.count)")], body: body))
        }
        defer { server.stop() }
        let (data, response) = try await Self.load(kind, server.url("/hints"))
        #expect(data == body)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
    }

    @Test("a 401 with a challenge ends at once with httpStatus(401)", arguments: LoaderFactory.all)
    func challenge(kind: LoaderFactory) async throws {
        let server = try RawHTTPServer { _ in
            // The body is announced but never sent: reading it would wait for ever.
            .init(bytes: RawHTTPServer.response(status: "401 Unauthorized", [("WWW-Authenticate", "Basic realm=\"images\""), ("Content-Length", "100")]),
                  holds: true)
        }
        defer { server.stop() }
        await #expect(throws: ImagePipelineError.httpStatus(401)) { _ = try await Self.load(kind, server.url("/private")) }
    }

    @Test("two different Content-Length values are an error that says so", arguments: LoaderFactory.all)
    func conflictingLengths(kind: LoaderFactory) async throws {
        let server = try RawHTTPServer { head in
            let fields = head.contains("/same")
                ? [("Content-Length", "4"), ("Content-Length", "4")]
                : [("Content-Length", "4"), ("Content-Length", "5")]
            return .init(bytes: RawHTTPServer.response(fields, body: Data("abcde".utf8)), closes: true)
        }
        defer { server.stop() }
        do {
            _ = try await Self.load(kind, server.url("/conflict"))
            Issue.record("two lengths were accepted")
        } catch let error as ImagePipelineError {
            guard case .invalidResponse(let reason) = error else { Issue.record("unexpected \(error)"); return }
            #expect(reason.lowercased().contains("content-length"), "\(reason)")
        }
        // The same value twice: RFC 9110 §8.6 allows one value repeated. libcurl reads it as that
        // one length; SwiftNIO's parser (llhttp) takes no repeated Content-Length and refuses it.
        if kind == .asyncHTTPClient {
            await #expect(throws: ImagePipelineError.self) { _ = try await Self.load(kind, server.url("/same")) }
        } else {
            #expect(try await Self.load(kind, server.url("/same")).0 == Data("abcd".utf8))
        }
    }

    @Test("a redirect to a file: URL is refused by its scheme, never resolved against the server", arguments: LoaderFactory.all)
    func redirectToFile(kind: LoaderFactory) async throws {
        let server = try RawHTTPServer { head in
            .init(bytes: RawHTTPServer.response(status: "302 Found", [("Location", "file:///etc/passwd"), ("Content-Length", "0")]))
        }
        defer { server.stop() }
        await #expect(throws: ImagePipelineError.unsupportedScheme("file")) { _ = try await Self.load(kind, server.url("/escape")) }
        #expect(server.current.requests == 1)
    }

    @Test("hop-by-hop fields are not stored, so not replayed from the disk cache", arguments: LoaderFactory.all)
    func hopByHopNotReplayed(kind: LoaderFactory) async throws {
        let body = Self.body(2_000)
        let server = try RawHTTPServer { _ in
            .init(bytes: RawHTTPServer.response([
                ("Cache-Control", "max-age=600"), ("Content-Type", "application/octet-stream"), ("X-Kept", "yes"),
                ("Connection", "keep-alive, X-Named-Hop"), ("X-Named-Hop", "1"), ("Keep-Alive", "timeout=5"),
                ("Proxy-Authenticate", "Basic realm=\"p\""), ("Proxy-Authentication-Info", "nextnonce=\"x\""),
                ("Proxy-Connection", "keep-alive"), ("TE", "trailers"), ("Upgrade", "h2c"),
                ("Transfer-Encoding", "chunked"),
            ], body: RawHTTPServer.chunked(body)))
        }
        defer { server.stop() }
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let loader = kind.make()
        let first = try await HTTPCache(loader: loader, storage: try DiskCache(configuration: .init(directory: folder))).response(for: URLRequest(url: server.url("/a")))
        #expect(first.source == .network && first.data == body)
        // A new cache on the same folder: an app after a restart.
        let replay = try await HTTPCache(loader: loader, storage: try DiskCache(configuration: .init(directory: folder))).response(for: URLRequest(url: server.url("/a")))
        #expect(replay.source == .cache)
        #expect(replay.data == body)
        #expect(server.current.requests == 1)
        let names = Set(replay.response.allHeaderFields.keys.compactMap { ($0 as? String)?.lowercased() })
        #expect(names.contains("x-kept") && names.contains("cache-control"))
        for field in ["connection", "x-named-hop", "keep-alive", "proxy-authenticate", "proxy-authentication-info",
                      "proxy-connection", "te", "upgrade", "transfer-encoding"] {
            #expect(!names.contains(field), "\(field) was replayed")
        }
        try await shutDown(loader)
    }

    @Test("cancelling 500 downloads in flight closes their connections and leaves no task", arguments: LoaderFactory.all)
    func cancellingFiveHundred(kind: LoaderFactory) async throws {
        // Every response stalls after half its body: no connection can go back to the pool.
        let server = try RawHTTPServer { _ in
            .init(bytes: RawHTTPServer.response([("Content-Length", "2000")], body: Self.body(1_000)), holds: true)
        }
        defer { server.stop() }
        var configuration = ImagePipeline.Configuration()
        configuration.dataLoader = kind.make()
        configuration.maxConcurrentDownloads = 500
        configuration.memoryCache = nil
        let pipeline = ImagePipeline(configuration: configuration)
        let tasks = (0..<500).map { index -> ImageTask in
            guard case .inProgress(let task) = pipeline.loadImage(ImageRequest(url: server.url("/\(index).jpg"))) else {
                fatalError("unexpected cache hit")
            }
            return task
        }
        // The pool's connections (16 a host) each carry a stalled response; the other requests
        // wait in the loader.
        try await waitFor { server.current.holding >= 16 }
        let before = server.current
        tasks.forEach { $0.cancel() }
        for task in tasks {
            await #expect(throws: CancellationError.self) { _ = try await task.response }
        }
        // Every connection that carried a request is closed; what stays open is idle in the pool
        // (the client may have opened some for queued requests as the stalled ones closed).
        try await waitFor { pipeline.activeTaskCount == 0 && server.current.holding == 0 }
        #expect(pipeline.graph.networkQueue.pendingCount == 0)
        if kind == .asyncHTTPClient {
            #expect(before.maxOpen <= 16, "\(before)")
            try await waitFor { server.current.open <= 16 }
        }
        // (URLSession on Linux opens more than its httpMaximumConnectionsPerHost of 16 — 21 to 36
        // connections at once were seen here — libcurl's pool, not ours.)
        // Closing the client finds nothing left to finish: every connection goes.
        try await shutDown(configuration.dataLoader)
        if kind == .asyncHTTPClient { try await waitFor { server.current.open == 0 && server.current.holding == 0 } }
    }

    /// A loader of `kind` with an idle limit of `idle` and a total limit of `total`, in seconds.
    static func loader(_ kind: LoaderFactory, idle: Double, total: Double) -> any DataLoading {
        switch kind {
        case .urlSession:
            let configuration = URLSessionDataLoader.defaultConfiguration
            configuration.timeoutIntervalForRequest = idle
            configuration.timeoutIntervalForResource = total
            return URLSessionDataLoader(configuration: configuration)
        case .asyncHTTPClient:
            return AsyncHTTPClientDataLoader(idleTimeout: .milliseconds(Int64(idle * 1000)), totalTimeout: .milliseconds(Int64(total * 1000)))
        }
    }

    @Test("a body that stops arriving fails with timedOut after the idle limit", arguments: LoaderFactory.all)
    func idleTimeout(kind: LoaderFactory) async throws {
        let server = try RawHTTPServer { _ in
            .init(bytes: RawHTTPServer.response([("Content-Length", "2000")], body: Self.body(1_000)), holds: true)
        }
        defer { server.stop() }
        let loader = Self.loader(kind, idle: 0.5, total: 60)
        do {
            _ = try await loader.loadData(for: URLRequest(url: server.url("/stalled")), maxBytes: 1 << 20) { _, _ in }
            Issue.record("a stalled body loaded")
        } catch let error as URLError {
            #expect(error.code == .timedOut && error.localizedDescription == "Timed out: the server sent nothing for 0.5 s", "\(error)")
        }
        try await shutDown(loader)
        try await waitFor { server.current.holding == 0 }
    }

    /// libcurl ignores `timeoutIntervalForResource` for a trickling body; the URLSession loader
    /// keeps the limit with a deadline of its own, so both loaders end the request at it.
    @Test("a body trickling in fails with timedOut at the total limit", arguments: LoaderFactory.all)
    func totalTimeout(kind: LoaderFactory) async throws {
        // 100 bytes every 0.1 s: 5 s for the whole body, never idle for long.
        let server = try RawHTTPServer { _ in
            .init(bytes: RawHTTPServer.response([("Content-Length", "5000")], body: Self.body(5_000)), closes: true, trickle: 0.1)
        }
        defer { server.stop() }
        let loader = Self.loader(kind, idle: 60, total: 0.5)
        do {
            _ = try await loader.loadData(for: URLRequest(url: server.url("/trickle")), maxBytes: 1 << 20) { _, _ in }
            Issue.record("a trickling body outlived the total limit")
        } catch let error as URLError {
            #expect(error.code == .timedOut && error.localizedDescription == "Timed out: the request did not finish within 0.5 s",
                    "\(error)")
        }
        try await shutDown(loader)
    }
}
