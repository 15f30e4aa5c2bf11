import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageServer
import Shashin
import Testing

/// What a pipeline refuses to load: schemes not allowed, endless or escaping redirects.
@Suite("Schemes and redirects")
struct LiveLimitsTests {
    static func pipeline(_ loader: LoaderFactory, schemes: Set<String>? = nil) -> ImagePipeline {
        var configuration = ImagePipeline.Configuration()
        configuration.dataLoader = loader.make()
        if let schemes { configuration.allowedSchemes = schemes }
        return ImagePipeline(configuration: configuration)
    }

    static func png() async throws -> Data {
        try await ImageGenerator.shared.data(for: ImageSpec(format: .png, width: 8, height: 6, seed: 5))
    }

    @Test("file and data URLs are refused by default, naming the scheme; loaded when allowed", arguments: LoaderFactory.all)
    func localSchemes(loader: LoaderFactory) async throws {
        let data = try await Self.png()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("shashin-limits-\(UUID().uuidString).png")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let inline = try #require(URL(string: "data:image/png;base64," + data.base64EncodedString()))

        await #expect(throws: ImagePipelineError.unsupportedScheme("file")) { try await Self.pipeline(loader).image(for: file) }
        await #expect(throws: ImagePipelineError.unsupportedScheme("data")) { try await Self.pipeline(loader).image(for: inline) }
        let allowing = Self.pipeline(loader, schemes: ["http", "https", "file", "data"])
        #expect(try await allowing.image(for: file).pixelWidth == 8)
        #expect(try await allowing.image(for: inline).pixelHeight == 6)
        #expect(ImagePipelineError.unsupportedScheme("file").description.contains("'file'"))
    }

    @Test("other schemes are refused even when listed: the loader does not handle them", arguments: LoaderFactory.all)
    func ftp(loader: LoaderFactory) async throws {
        let url = try #require(URL(string: "ftp://example.com/a.png"))
        await #expect(throws: ImagePipelineError.unsupportedScheme("ftp")) { try await Self.pipeline(loader).image(for: url) }
        await #expect(throws: ImagePipelineError.unsupportedScheme("ftp")) {
            try await Self.pipeline(loader, schemes: ["ftp"]).image(for: url)
        }
    }

    @Test("redirects are followed up to the limit; a loop fails with tooManyRedirects", arguments: LoaderFactory.all)
    func redirects(loader: LoaderFactory) async throws {
        let server = ImageServer()
        try await server.start()
        server.setRoute("/image.png", RouteScript(body: .data(try await Self.png())))
        server.setRoute("/hop2", RouteScript(status: 302, headers: ["Location": "/image.png"]))
        server.setRoute("/hop1", RouteScript(status: 301, headers: ["Location": "/hop2"]))
        server.setRoute("/loop", RouteScript(status: 302, headers: ["Location": "/loop"]))
        #expect(try await Self.pipeline(loader).image(for: server.url("/hop1")).pixelWidth == 8)
        await #expect(throws: ImagePipelineError.tooManyRedirects(limit: 5)) {
            try await Self.pipeline(loader).image(for: server.url("/loop"))
        }
        #expect(server.requestCount(for: "/loop") == 6) // the first request and five redirects
        await server.stop()
    }

    @Test("a redirect to a file URL is refused, not followed", arguments: LoaderFactory.all)
    func redirectOutOfHTTP(loader: LoaderFactory) async throws {
        let server = ImageServer()
        try await server.start()
        server.setRoute("/escape", RouteScript(status: 302, headers: ["Location": "file:///etc/passwd"]))
        do {
            _ = try await Self.pipeline(loader, schemes: ["http", "file"]).image(for: server.url("/escape"))
            Issue.record("a redirect to file:// was followed")
        } catch let error as ImagePipelineError {
            // On Linux URLSession resolves the location against the server (a 404 for /etc/passwd
            // there); elsewhere the loader refuses the scheme. Reading the file would have ended in
            // `decodingFailed` (it is no image).
            // The AsyncHTTPClient loader refuses the scheme before resolving the location.
            switch (loader, error) {
            case (_, .unsupportedScheme("file")): break
            case (.urlSession, .httpStatus): break
            default: Issue.record("unexpected \(error)")
            }
        } catch let error as URLError where loader == .urlSession {
            _ = error // URLSession on Linux: a failure of the redirect itself
        }
        await server.stop()
    }

    @Test("a redirect to a scheme the configuration leaves out is refused before it is followed",
          arguments: LoaderFactory.all)
    func redirectOutsideAllowedSchemes(loader: LoaderFactory) async throws {
        let server = ImageServer()
        try await server.start()
        server.setRoute("/image.png", RouteScript(body: .data(try await Self.png())))
        // The same server's port under `https`: followed, the request would fail in the TLS
        // handshake, not with `unsupportedScheme`.
        let secure = try #require(URL(string: server.url("/image.png").absoluteString.replacingOccurrences(of: "http://", with: "https://")))
        server.setRoute("/to-https", RouteScript(status: 302, headers: ["Location": secure.absoluteString]))
        server.setRoute("/to-http", RouteScript(status: 302, headers: ["Location": server.url("/image.png").absoluteString]))
        await #expect(throws: ImagePipelineError.unsupportedScheme("https")) {
            try await Self.pipeline(loader, schemes: ["http"]).image(for: server.url("/to-https"))
        }
        #expect(try await Self.pipeline(loader, schemes: ["http"]).image(for: server.url("/to-http")).pixelWidth == 8)
        #expect(server.requestCount(for: "/image.png") == 1)
        await server.stop()
    }
}
