import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOPosix
import Testing
import ImageServer

@Suite("Connections")
struct ConnectionTests {
    @Test func keepsAConnectionAliveAcrossRequests() async throws {
        try await withServer { server in
            server.setRoute("/a", .data(Data(count: 5000)))
            let session = makeSession()
            for _ in 0..<5 {
                let (data, response) = try await fetch(server.url("/a"), session: session)
                #expect(response.statusCode == 200)
                #expect(data.count == 5000)
            }
            #expect(server.connectionsAccepted == 1)
            #expect(server.totalRequests == 5)
        }
    }

    @Test func stopClosesIdleKeepAliveConnections() async throws {
        let server = ImageServer()
        try await server.start()
        // The session lives to the end: a released URLSession closes its pooled connection, which
        // would race the count below.
        let session = makeSession()
        _ = try await fetch(server.url("/"), session: session)
        #expect(server.openConnections == 1)
        await server.stop()
        #expect(server.openConnections == 0)
        withExtendedLifetime(session) {}
    }

    @Test func sendsABodyWithoutALengthChunked() async throws {
        try await withServer { server in
            let body = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
            var script = RouteScript.data(body)
            script.sendsContentLength = false
            server.setRoute("/chunked", script)
            let reply = try await RawExchange.send("GET /chunked HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", port: server.port)
            #expect(reply.head.contains("Transfer-Encoding: chunked"))
            #expect(!reply.head.lowercased().contains("content-length"))
            let (data, response) = try await fetch(server.url("/chunked"))
            #expect(response.statusCode == 200)
            #expect(data == body)
        }
    }

    @Test func aMalformedRequestGets400AndTheServerServesOn() async throws {
        try await withServer { server in
            for garbage in ["NOT HTTP AT ALL\r\n\r\n", "GET / HTTP/1.1\r\nHost x\r\n\r\n", "\u{0}\u{1}\u{2}\r\n\r\n"] {
                let reply = try await RawExchange.send(garbage, port: server.port)
                #expect(reply.head.hasPrefix("HTTP/1.1 400"), "\(garbage.debugDescription)")
            }
            let (_, response) = try await fetch(server.url("/"))
            #expect(response.statusCode == 200)
        }
    }

    @Test func answersHTTP10AndClosesWhenNotKeptAlive() async throws {
        try await withServer { server in
            server.setRoute("/a", .data(Data("ten".utf8)))
            let reply = try await RawExchange.send("GET /a HTTP/1.0\r\n\r\n", port: server.port)
            #expect(reply.head.hasPrefix("HTTP/1.0 200"))
            #expect(reply.head.contains("Connection: close"))
            #expect(reply.body == Data("ten".utf8))
            #expect(server.lastRequest(for: "/a")?.httpVersion == "HTTP/1.0")
        }
    }
}

/// Writes raw bytes to a server and reads everything until the server closes the connection.
enum RawExchange {
    struct Reply {
        var head: String
        var body: Data
    }

    /// A response parsed from the raw bytes: status, headers in order (repeats kept), body.
    struct Response {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: Data

        /// The first value of header `name`, ignoring case.
        func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// GETs `path` on one connection (closed after it) with `headers`, and parses the answer.
    /// The tests of 401 challenges use it instead of URLSession, which on Linux answers some
    /// challenges itself (and its async `data(for:)` was seen never to return on a Basic one).
    static func get(_ path: String, headers: [String: String] = [:], port: Int) async throws -> Response {
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        let reply = try await send(request + "\r\n", port: port)
        let lines = reply.head.components(separatedBy: "\r\n")
        let statusParts = (lines.first ?? "").split(separator: " ")
        var parsed: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            parsed.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        return Response(status: statusParts.count > 1 ? Int(statusParts[1]) ?? 0 : 0, headers: parsed, body: reply.body)
    }

    static func send(_ request: String, port: Int) async throws -> Reply {
        let received = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: Data.self)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Collector(promise: received))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        try await channel.writeAndFlush(ByteBuffer(string: request)).get()
        let bytes = try await received.futureResult.get()
        guard let split = bytes.range(of: Data("\r\n\r\n".utf8)) else {
            return Reply(head: String(decoding: bytes, as: UTF8.self), body: Data())
        }
        return Reply(head: String(decoding: bytes[..<split.lowerBound], as: UTF8.self), body: Data(bytes[split.upperBound...]))
    }

    private final class Collector: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let promise: EventLoopPromise<Data>
        var bytes = Data()
        init(promise: EventLoopPromise<Data>) { self.promise = promise }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            bytes.append(contentsOf: unwrapInboundIn(data).readableBytesView)
        }
        func channelInactive(context: ChannelHandlerContext) {
            promise.succeed(bytes)
        }
        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            promise.succeed(bytes)
            context.close(promise: nil)
        }
    }
}
