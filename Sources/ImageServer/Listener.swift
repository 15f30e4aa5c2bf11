import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL

/// Binds an ``ImageServer`` listener on 127.0.0.1 and sets up each connection it accepts: plain
/// HTTP/1.1, or TLS with the protocol chosen by ALPN (HTTP/2 or HTTP/1.1). Every connection has
/// TCP_NODELAY, so a response's head and body never wait on each other's ACK.
enum Listener {
    struct Services: Sendable {
        let handler: ScriptedHandler
        let tasks: ResponseTasks
        let connections: ConnectionRegistry
    }

    /// Binds `port` (0: any free one) and returns the listening channel.
    static func bind(port: Int, tls: TLSIdentity?, services: Services) async throws -> any Channel {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in
                services.connections.add(channel)
                let ledger = services.handler.ledger
                ledger.connectionOpened(secure: tls != nil)
                channel.closeFuture.whenComplete { _ in ledger.connectionClosed() }
                guard let tls else {
                    return channel.eventLoop.makeCompletedFuture {
                        try configureHTTP1(channel, services: services, isSecure: false)
                    }
                }
                do {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls.sslContext))
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
                return channel.configureHTTP2SecureUpgrade(
                    h2ChannelConfigurator: { channel in
                        ledger.negotiated(.http2)
                        return channel.eventLoop.makeCompletedFuture {
                            _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                                mode: .server,
                                connectionConfiguration: .init(),
                                streamConfiguration: .init()
                            ) { stream in
                                stream.eventLoop.makeCompletedFuture {
                                    try stream.pipeline.syncOperations.addHandlers([
                                        HTTP2FramePayloadToHTTP1ServerCodec(),
                                        RequestHandler(handler: services.handler, tasks: services.tasks, isSecure: true),
                                    ])
                                }
                            }
                        }
                    },
                    http1ChannelConfigurator: { channel in
                        ledger.negotiated(.http1_1)
                        return channel.eventLoop.makeCompletedFuture {
                            try configureHTTP1(channel, services: services, isSecure: true)
                        }
                    }
                )
            }
        return try await bootstrap.bind(host: "127.0.0.1", port: port).get()
    }

    /// NIO's HTTP/1.1 codec with pipelining assistance (one request at a time) and a 400 for
    /// malformed requests. Framing headers are ours: the writer sets `Content-Length`, or chunked,
    /// or a wrong length on purpose.
    private static func configureHTTP1(_ channel: any Channel, services: Services, isSecure: Bool) throws {
        var encoder = HTTPResponseEncoder.Configuration()
        encoder.automaticallySetFramingHeaders = false
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
            withPipeliningAssistance: true, withErrorHandling: true, withEncoderConfiguration: encoder)
        try channel.pipeline.syncOperations.addHandler(
            RequestHandler(handler: services.handler, tasks: services.tasks, isSecure: isSecure))
    }
}
