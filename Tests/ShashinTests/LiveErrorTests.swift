import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageServer
import Shashin
import Testing

@Suite("Over HTTP: errors")
struct LiveErrorTests {
    @Test(arguments: LoaderFactory.all) func notFoundIsAnHTTPStatusError(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        fixture.server.setRoute("/missing.jpg", .status(404, text: "nope"))
        let task = fixture.task(ImageRequest(url: fixture.server.url("/missing.jpg")))
        #expect(await fixture.error(of: task) as? ImagePipelineError == .httpStatus(404))
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all) func anHTMLBodyIsADecodingFailure(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        fixture.server.setRoute("/page.jpg", .data(Data("<html><body>hi</body></html>".utf8), contentType: "image/jpeg"))
        let request = ImageRequest(url: fixture.server.url("/page.jpg"))
        guard case .decodingFailed(let format, _)? = await fixture.error(of: fixture.task(request)) as? ImagePipelineError else {
            Issue.record("expected decodingFailed"); return
        }
        #expect(format == nil)
        #expect(fixture.pipeline.cachedImage(for: request) == nil)
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all) func aBodyOverTheLimitWithContentLengthIsRefusedBeforeItIsRead(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader) { $0.maxResponseBytes = 10_000 }
        let url = fixture.serveImage("/big.png", format: .png, width: 300, height: 300, bytesPerSecond: 100_000)
        let task = fixture.task(ImageRequest(url: url))
        #expect(await fixture.error(of: task) as? ImagePipelineError == .dataTooLarge(limit: 10_000))
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all) func aTruncatedBodyIsAnErrorAndNothingIsCached(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        for fault in [RouteScript.Fault.shortBody, .dropConnectionMidBody] {
            var script = RouteScript.image(ImageSpec(format: .jpeg, width: 200, height: 150, seed: 3))
            script.fault = fault
            fixture.server.setRoute("/cut.jpg", script)
            let request = ImageRequest(url: fixture.server.url("/cut.jpg"))
            guard case .truncatedData(let expected, let received)? = await fixture.error(of: fixture.task(request)) as? ImagePipelineError else {
                Issue.record("expected truncatedData for \(fault)"); continue
            }
            #expect(received < expected)
            #expect(fixture.pipeline.cachedImage(for: request) == nil)
        }
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all) func aServerErrorIsAnHTTPStatusError(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        var script = RouteScript.image(ImageSpec(format: .jpeg, width: 20, height: 20, seed: 3))
        script.fault = .status500
        fixture.server.setRoute("/error.jpg", script)
        let task = fixture.task(ImageRequest(url: fixture.server.url("/error.jpg")))
        #expect(await fixture.error(of: task) as? ImagePipelineError == .httpStatus(500))
        try await fixture.finish()
    }

    /// A port held closed (`ClosedPort`), not a stopped server's: that port could be given to
    /// another test's server meanwhile, which would then answer.
    @Test(arguments: LoaderFactory.all) func aRefusedConnectionIsANetworkFailure(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        let closed = try ClosedPort()
        let task = fixture.task(ImageRequest(url: closed.url("/gone.jpg")))
        let error = await fixture.error(of: task)
        // The platform's error, as URLSession gives it on Apple platforms, on both loaders.
        guard let urlError = error as? URLError, urlError.code == .cannotConnectToHost else {
            Issue.record("expected URLError.cannotConnectToHost, got \(String(describing: error))"); return
        }
        withExtendedLifetime(closed) {}
        try await fixture.finish()
    }
}

@Suite("Over HTTP: loading")
struct LiveLoadingTests {
    @Test(arguments: LoaderFactory.all) func thumbnailsHaveTheAskedSizeAndAspectRatio(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        let cases: [(ImageFormat, Int, Int, Int, Int)] = [
            (.jpeg, 1200, 900, 256, 192), (.png, 300, 600, 150, 300), (.webp, 800, 450, 256, 144), (.gif, 320, 240, 256, 192),
            (.jpeg, 100, 80, 100, 80), // smaller than asked: not upscaled
        ]
        for (index, (format, width, height, expectedWidth, expectedHeight)) in cases.enumerated() {
            let url = fixture.serveImage("/thumb/\(index)", format: format, width: width, height: height)
            let maxSize = index == 1 ? 300 : 256
            let image = try await fixture.pipeline.image(for: ImageRequest(url: url, thumbnail: .init(maxPixelSize: maxSize)))
            #expect(image.pixelWidth == expectedWidth && image.pixelHeight == expectedHeight, "\(format) \(width)×\(height)")
        }
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all) func theRequestModifierAddsHeadersThatReachTheServer(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader) {
            $0.requestModifier = { request in
                var request = request
                request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
                return request
            }
        }
        let url = fixture.serveImage("/private.jpg")
        _ = try await fixture.pipeline.image(for: url)
        let headers = fixture.server.lastRequest(for: "/private.jpg")?.headers ?? [:]
        #expect(headers.first { $0.key.lowercased() == "authorization" }?.value == "Bearer secret")
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all) func progressIsReportedInBytes(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        let url = fixture.serveImage("/progress.png", format: .png, width: 200, height: 200, bytesPerSecond: 400_000)
        let task = fixture.task(ImageRequest(url: url))
        var updates: [ImageTask.Progress] = []
        for await progress in task.progress { updates.append(progress) }
        #expect(updates.count > 1)
        #expect(updates.last.map { $0.completed == $0.total && $0.total > 0 } == true)
        #expect(zip(updates, updates.dropFirst()).allSatisfy { $0.completed <= $1.completed })
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all) func dataForARequestSkipsDecodingAndSharesTheDownload(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        let url = fixture.serveImage("/raw.webp", format: .webp, latency: .milliseconds(100))
        async let first = fixture.pipeline.data(for: ImageRequest(url: url))
        async let second = fixture.pipeline.data(for: ImageRequest(url: url))
        let (a, b) = try await (first, second)
        #expect(a.0 == b.0 && ImageFormat(sniffing: a.0) == .webp)
        #expect(fixture.server.requestCount(for: "/raw.webp") == 1)
        try await fixture.finish()
    }
}

@Suite("Over HTTP: the response size limit")
struct LiveSizeLimitTests {
    @Test(arguments: LoaderFactory.all) func aChunkedBodyOverTheLimitIsRefusedWhileStreaming(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader) { $0.maxResponseBytes = 10_000 }
        let spec = ImageSpec(format: .png, width: 400, height: 400, seed: 5)
        let fullSize = try await fixture.server.generator.data(for: spec).count
        var script = RouteScript.image(spec)
        script.sendsContentLength = false
        script.bytesPerSecond = 100_000
        fixture.server.setRoute("/chunked.png", script)
        let task = fixture.task(ImageRequest(url: fixture.server.url("/chunked.png")))
        #expect(await fixture.error(of: task) as? ImagePipelineError == .dataTooLarge(limit: 10_000))
        try await waitFor { fixture.server.inFlight == 0 }
        // Stopped early: far less than the whole body crossed the wire.
        #expect(fixture.server.bytesSent(for: "/chunked.png") < fullSize / 2)
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all) func aChunkedBodyWithinTheLimitLoads(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        var script = RouteScript.image(ImageSpec(format: .webp, width: 120, height: 90, seed: 5))
        script.sendsContentLength = false
        fixture.server.setRoute("/chunked.webp", script)
        let image = try await fixture.pipeline.image(for: fixture.server.url("/chunked.webp"))
        #expect(image.pixelWidth == 120 && image.pixelHeight == 90)
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all) func theLoaderAloneEnforcesTheLimitWithoutContentLength(kind: LoaderFactory) async throws {
        let server = ImageServer()
        try await server.start()
        var script = RouteScript.data(Data(repeating: 7, count: 50_000))
        script.sendsContentLength = false
        server.setRoute("/blob", script)
        let loader = kind.make()
        await #expect(throws: ImagePipelineError.dataTooLarge(limit: 20_000)) {
            _ = try await loader.loadData(for: URLRequest(url: server.url("/blob")), maxBytes: 20_000) { _, _ in }
        }
        let (data, _) = try await loader.loadData(for: URLRequest(url: server.url("/blob")), maxBytes: 50_000) { _, _ in }
        #expect(data.count == 50_000)
        await server.stop()
        try await shutDown(loader)
    }
}
