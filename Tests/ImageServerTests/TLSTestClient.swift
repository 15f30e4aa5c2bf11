import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS

/// One response as the NIO test client read it.
struct TestResponse: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: Data
}

/// The connection ended before the response did; `received` holds the body bytes that came.
struct ConnectionEndedEarly: Error {
    var received: Int
}

/// A TLS connection to an ``ImageServer``'s HTTPS listener that trusts only the server's own
/// certificate, offers `alpn`, and speaks whatever protocol was negotiated: HTTP/2 (each request
/// on a new stream of the one connection) or HTTP/1.1 (requests one after another).
final class TLSTestConnection: Sendable {
    let channel: any Channel
    /// The ALPN outcome: `h2`, `http/1.1`, or `nil` when the client offered nothing.
    let negotiated: String?
    private let multiplexer: NIOHTTP2Handler.StreamMultiplexer?

    private init(channel: any Channel, negotiated: String?, multiplexer: NIOHTTP2Handler.StreamMultiplexer?) {
        self.channel = channel
        self.negotiated = negotiated
        self.multiplexer = multiplexer
    }

    enum Negotiated: Sendable {
        case h2(NIOHTTP2Handler.StreamMultiplexer)
        case http1(String?)
    }

    static func open(port: Int, trusting pem: String, alpn: [String] = ["h2", "http/1.1"]) async throws -> TLSTestConnection {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(pem.utf8), format: .pem)])
        tls.applicationProtocols = alpn
        let context = try NIOSSLContext(configuration: tls)
        let group = MultiThreadedEventLoopGroup.singleton
        let ready = group.next().makePromise(of: Negotiated.self)
        let channel = try await ClientBootstrap(group: group)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        NIOSSLClientHandler(context: context, serverHostname: "localhost"))
                    try channel.pipeline.syncOperations.addHandler(ApplicationProtocolNegotiationHandler { result in
                        switch result {
                        case .negotiated("h2"):
                            return channel.eventLoop.makeCompletedFuture {
                                let multiplexer = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                                    mode: .client, connectionConfiguration: .init(), streamConfiguration: .init()
                                ) { stream in stream.eventLoop.makeSucceededVoidFuture() }
                                ready.succeed(.h2(multiplexer))
                            }
                        case .negotiated(let name):
                            return channel.eventLoop.makeCompletedFuture {
                                try channel.pipeline.syncOperations.addHTTPClientHandlers()
                                try channel.pipeline.syncOperations.addHandler(ResponseCollector())
                                ready.succeed(.http1(name))
                            }
                        case .fallback:
                            return channel.eventLoop.makeCompletedFuture {
                                try channel.pipeline.syncOperations.addHTTPClientHandlers()
                                try channel.pipeline.syncOperations.addHandler(ResponseCollector())
                                ready.succeed(.http1(nil))
                            }
                        }
                    })
                    try channel.pipeline.syncOperations.addHandler(FailOnError(promise: ready))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        channel.closeFuture.whenComplete { _ in ready.fail(ConnectionEndedEarly(received: 0)) }
        switch try await ready.futureResult.get() {
        case .h2(let multiplexer):
            return TLSTestConnection(channel: channel, negotiated: "h2", multiplexer: multiplexer)
        case .http1(let name):
            return TLSTestConnection(channel: channel, negotiated: name, multiplexer: nil)
        }
    }

    /// Sends a GET for `path` and returns the whole response.
    func get(_ path: String, headers: [(String, String)] = []) async throws -> TestResponse {
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path)
        head.headers.add(name: "Host", value: "localhost")
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        let promise = channel.eventLoop.makePromise(of: TestResponse.self)
        if let multiplexer {
            let stream = try await multiplexer.createStreamChannel { stream in
                stream.eventLoop.makeCompletedFuture {
                    try stream.pipeline.syncOperations.addHandlers([
                        HTTP2FramePayloadToHTTP1ClientCodec(httpProtocol: .https), ResponseCollector(),
                    ])
                }
            }.get()
            try await stream.writeAndFlush(ResponseCollector.Request(head: head, promise: promise)).get()
        } else {
            try await channel.writeAndFlush(ResponseCollector.Request(head: head, promise: promise)).get()
        }
        return try await promise.futureResult.get()
    }

    func close() async {
        try? await channel.close()
    }
}

/// Fails the negotiation promise when the handshake fails (an untrusted certificate, say).
private final class FailOnError: ChannelInboundHandler, Sendable {
    typealias InboundIn = Any
    let promise: EventLoopPromise<TLSTestConnection.Negotiated>
    init(promise: EventLoopPromise<TLSTestConnection.Negotiated>) { self.promise = promise }
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.close(promise: nil)
    }
}

/// Writes requests and completes each one's promise with its response, in order.
private final class ResponseCollector: ChannelDuplexHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = Request
    typealias OutboundOut = HTTPClientRequestPart

    struct Request: Sendable {
        var head: HTTPRequestHead
        var promise: EventLoopPromise<TestResponse>
    }

    private var waiting: [EventLoopPromise<TestResponse>] = []
    private var current: TestResponse?

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        waiting.append(request.promise)
        context.write(wrapOutboundOut(.head(request.head)), promise: nil)
        context.write(wrapOutboundOut(.end(nil)), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            current = TestResponse(status: Int(head.status.code), headers: head.headers, body: Data())
        case .body(let buffer):
            current?.body.append(contentsOf: buffer.readableBytesView)
        case .end:
            if let current, !waiting.isEmpty { waiting.removeFirst().succeed(current) }
            current = nil
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        failAll(ConnectionEndedEarly(received: current?.body.count ?? 0))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        failAll(error)
        context.close(promise: nil)
    }

    private func failAll(_ error: any Error) {
        let waiting = self.waiting
        self.waiting = []
        for promise in waiting { promise.fail(error) }
    }
}
