import AsyncHTTPClient
import Foundation
import ImageServer
import NIOSSL
import Shashin
import ShashinAsyncHTTPClient
import Testing

@Suite("Over HTTPS: HTTP/2")
struct LiveHTTP2Tests {
    @Test func fiftyConcurrentLoadsOverHTTPSShareOneHTTP2Connection() async throws {
        let server = ImageServer(httpsPort: 0)
        try await server.start()
        let pem = try #require(server.certificatePEM)
        var clientConfiguration = AsyncHTTPClientDataLoader.clientConfiguration()
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8)))
        clientConfiguration.tlsConfiguration = tls
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: clientConfiguration)
        var configuration = ImagePipeline.Configuration()
        configuration.dataLoader = AsyncHTTPClientDataLoader(client: client)
        configuration.maxConcurrentDownloads = 50
        let pipeline = ImagePipeline(configuration: configuration)

        // One load first: until a connection has negotiated, a client may open several.
        let first = ImageSpec(format: .png, width: 32, height: 24, seed: 100)
        #expect(try await pipeline.image(for: try #require(server.httpsURL(first.path))).pixelWidth == 32)
        let specs = (0..<50).map { ImageSpec(format: .png, width: 40 + $0, height: 30, seed: UInt64($0)) }
        try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for spec in specs {
                let url = try #require(server.httpsURL(spec.path))
                group.addTask { (spec.width, try await pipeline.image(for: url).pixelWidth) }
            }
            for try await (expected, width) in group { #expect(width == expected) }
        }
        #expect(server.secureConnectionsAccepted == 1)
        #expect(server.connectionsAccepted == 1)
        #expect(server.connectionsNegotiated(.http2) == 1)
        #expect(server.connectionsNegotiated(.http1_1) == 0)
        #expect(server.totalRequests == 51)
        #expect(server.lastRequest(for: specs[0].path)?.httpVersion == "HTTP/2")
        try await client.shutdown()
        await server.stop()
    }
}
