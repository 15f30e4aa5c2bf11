import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageServer
import Shashin
import Testing

/// Resumable downloads (RFC 9110 §14) over real HTTP: a download that ends early leaves its first
/// bytes, and the next load asks for the rest with `Range` and `If-Range` — or for the whole
/// image when the server's copy changed, cannot serve ranges, or ignores them.
@Suite("Over HTTP: resumable downloads")
struct LiveResumeTests {
    /// One generator for the suite: it encodes each picture once and keeps it.
    static let generator = ImageGenerator()

    /// A PNG of about 4 MB (2800×1900 of the server's noisy picture).
    static func bigImage() async throws -> Data {
        try await generator.data(for: ImageSpec(format: .png, width: 2800, height: 1900, seed: 11))
    }

    /// Another picture, for a route whose image changes.
    static func other() async throws -> Data {
        try await generator.data(for: ImageSpec(format: .png, width: 900, height: 700, seed: 12))
    }

    /// `data` on `path` with ranges served, a strong `ETag` and the connection dropped halfway.
    static func serveDropping(_ server: ImageServer, _ path: String, data: Data,
                              headers: [String: String] = ["ETag": "\"v1\""], servesRanges: Bool = true) -> URL {
        var script = RouteScript.data(data, contentType: "image/png", headers: headers)
        script.servesRanges = servesRanges
        script.fault = .dropConnectionMidBody
        server.setRoute(path, script)
        return server.url(path)
    }

    static func failedFirstLoad(_ fixture: LiveFixture, _ url: URL) async throws {
        await #expect(throws: (any Error).self) { try await fixture.pipeline.data(for: ImageRequest(url: url)) }
    }

    /// A new pipeline (memory empty) with a loader of `kind` on the disk cache `storage`: a relaunch.
    static func pipeline(_ kind: LoaderFactory, on storage: DiskCache) -> (ImagePipeline, any DataLoading) {
        var configuration = ImagePipeline.Configuration()
        configuration.dataLoader = kind.make()
        configuration.diskCache = storage
        return (ImagePipeline(configuration: configuration), configuration.dataLoader)
    }

    /// Runs `body` with a started server, the big image and a maker of relaunched pipelines (a
    /// loader of `kind` each, on one disk cache in a temporary folder); then stops the server and
    /// removes the folder.
    static func onDisk(_ kind: LoaderFactory,
                       _ body: (ImageServer, Data, () -> (ImagePipeline, any DataLoading)) async throws -> Void) async throws {
        let server = ImageServer()
        try await server.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let storage = try DiskCache(configuration: .init(directory: folder))
        try await body(server, try await bigImage(), { pipeline(kind, on: storage) })
        await server.stop()
    }

    static func store(_ fixture: LiveFixture) -> ResumableDataStore {
        fixture.pipeline.configuration.resumableData!
    }

    @Test("a 4 MB image dropped at half finishes on the next request with at most 1.05× its size sent",
          arguments: LoaderFactory.all)
    func droppedHalfwayResumes(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        let big = try await Self.bigImage()
        #expect(big.count > 4_000_000)
        let url = Self.serveDropping(fixture.server, "/big.png", data: big)
        try await Self.failedFirstLoad(fixture, url)
        let kept = try #require(Self.store(fixture).resumableData(for: url))
        #expect(kept.data == big.prefix(kept.data.count))
        #expect(kept.validator == "\"v1\"" && kept.totalLength == big.count)

        try await waitFor { fixture.server.inFlight == 0 }
        let sentBefore = fixture.server.bytesSent(for: "/big.png")
        #expect(sentBefore == big.count / 2)
        fixture.server.updateRoute("/big.png") { $0.fault = nil }
        let response = try await fixture.pipeline.response(for: ImageRequest(url: url, thumbnail: ThumbnailOptions(maxPixelSize: 128)))
        #expect(response.resumedFromByte == kept.data.count)
        #expect(response.image.pixelWidth == 128)
        #expect(fixture.server.lastRequest(for: "/big.png")?.header("Range") == "bytes=\(kept.data.count)-")
        #expect(fixture.server.lastRequest(for: "/big.png")?.header("If-Range") == "\"v1\"")
        #expect(fixture.server.responseCount(for: "/big.png", status: 206) == 1)
        try await waitFor { fixture.server.inFlight == 0 }
        // The resume itself sends exactly the missing bytes.
        #expect(fixture.server.bytesSent(for: "/big.png") == sentBefore + big.count - kept.data.count)
        // In all, at most 1.05× the image: every byte that reached the client was kept.
        #expect(Double(fixture.server.bytesSent(for: "/big.png")) <= 1.05 * Double(big.count))
        #expect(kept.data.count == sentBefore)
        #expect(Self.store(fixture).count == 0)
        try await fixture.finish()
    }

    @Test("progress continues from the kept bytes", arguments: LoaderFactory.all)
    func progressContinuesFromTheKeptBytes(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        let big = try await Self.bigImage()
        let url = Self.serveDropping(fixture.server, "/progress.png", data: big)
        try await Self.failedFirstLoad(fixture, url)
        let kept = try #require(Self.store(fixture).resumableData(for: url)).data.count
        // The rest takes at least two seconds: the progress stream below is there long before it ends.
        fixture.server.updateRoute("/progress.png") { script in
            script.fault = nil
            script.bytesPerSecond = (big.count - kept) / 2
        }
        let task = fixture.task(ImageRequest(url: url, thumbnail: ThumbnailOptions(maxPixelSize: 64)))
        var reports: [ImageTask.Progress] = []
        for await progress in task.progress { reports.append(progress) }
        _ = try await task.response
        #expect(!reports.isEmpty)
        #expect(reports.allSatisfy { $0.total == Int64(big.count) && $0.completed > Int64(kept) })
        #expect(reports.last?.completed == Int64(big.count))
        try await fixture.finish()
    }

    @Test("the resumed bytes are the served bytes, and the kept ones go", arguments: LoaderFactory.all)
    func resumedBytesAreExact(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        let big = try await Self.bigImage()
        let url = Self.serveDropping(fixture.server, "/big.png", data: big)
        try await Self.failedFirstLoad(fixture, url)
        fixture.server.updateRoute("/big.png") { $0.fault = nil }
        let (data, response) = try await fixture.pipeline.data(for: ImageRequest(url: url))
        #expect(data == big)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200 && http.value(forHTTPHeaderField: "Content-Length") == "\(big.count)")
        #expect(http.value(forHTTPHeaderField: "Content-Range") == nil)
        #expect(Self.store(fixture).resumableData(for: url) == nil)
        try await fixture.finish()
    }

    @Test("cancelling the last subscriber keeps the bytes, and the next request resumes", arguments: LoaderFactory.all)
    func cancelThenResume(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        let big = try await Self.bigImage()
        var script = RouteScript.data(big, contentType: "image/png", headers: ["ETag": "\"v1\""])
        script.servesRanges = true
        // The whole body takes 20 s at this rate: the cancel below lands well inside it.
        script.bytesPerSecond = big.count / 20
        fixture.server.setRoute("/slow.png", script)
        let url = fixture.server.url("/slow.png")
        let task = fixture.task(ImageRequest(url: url))
        try await waitFor { fixture.server.bytesSent(for: "/slow.png") > 100_000 }
        task.cancel()
        try await waitFor { Self.store(fixture).count == 1 }
        try await waitFor { fixture.server.inFlight == 0 }
        let kept = try #require(Self.store(fixture).resumableData(for: url))
        #expect(kept.data == big.prefix(kept.data.count))

        fixture.server.updateRoute("/slow.png") { $0.bytesPerSecond = nil }
        let before = fixture.server.bytesSent(for: "/slow.png")
        let (data, _) = try await fixture.pipeline.data(for: ImageRequest(url: url))
        #expect(data == big)
        try await waitFor { fixture.server.inFlight == 0 }
        #expect(fixture.server.bytesSent(for: "/slow.png") - before == big.count - kept.data.count)
        #expect(fixture.server.responseCount(for: "/slow.png", status: 206) == 1)
        try await fixture.finish()
    }

    @Test("a changed ETag gets the whole new image, never spliced bytes", arguments: LoaderFactory.all)
    func changedETagGetsTheNewImage(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        let big = try await Self.bigImage()
        let url = Self.serveDropping(fixture.server, "/changing.png", data: big)
        try await Self.failedFirstLoad(fixture, url)
        #expect(Self.store(fixture).count == 1)
        let replacement = try await Self.other()
        var script = RouteScript.data(replacement, contentType: "image/png", headers: ["ETag": "\"v2\""])
        script.servesRanges = true
        fixture.server.setRoute("/changing.png", script)
        let (data, _) = try await fixture.pipeline.data(for: ImageRequest(url: url))
        #expect(data == replacement)
        #expect(fixture.server.lastRequest(for: "/changing.png")?.header("If-Range") == "\"v1\"")
        #expect(fixture.server.responseCount(for: "/changing.png", status: 200) == 2)
        #expect(Self.store(fixture).count == 0)
        try await fixture.finish()
    }

    @Test("a representation shorter than the kept bytes (416) is loaded whole", arguments: LoaderFactory.all)
    func unsatisfiableRangeLoadsTheWholeImage(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        let big = try await Self.bigImage()
        let url = Self.serveDropping(fixture.server, "/shrunk.png", data: big)
        try await Self.failedFirstLoad(fixture, url)
        // A server that keeps the ETag of a changed file: the range is past its end.
        let replacement = try await Self.other()
        var script = RouteScript.data(replacement, contentType: "image/png", headers: ["ETag": "\"v1\""])
        script.servesRanges = true
        fixture.server.setRoute("/shrunk.png", script)
        let (data, _) = try await fixture.pipeline.data(for: ImageRequest(url: url))
        #expect(data == replacement)
        #expect(fixture.server.responseCount(for: "/shrunk.png", status: 416) == 1)
        #expect(Self.store(fixture).count == 0)
        try await fixture.finish()
    }

    @Test("a 206 that does not continue the kept bytes is never spliced in", arguments: LoaderFactory.all)
    func mismatchedContentRangeIsNotSpliced(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        let big = try await Self.bigImage()
        let url = Self.serveDropping(fixture.server, "/liar.png", data: big)
        try await Self.failedFirstLoad(fixture, url)
        let kept = try #require(Self.store(fixture).resumableData(for: url))
        // A server that answers a range with the wrong bytes: from the start instead of where
        // asked, saying so in Content-Range. A plain request gets the whole image.
        fixture.server.setRoute("/liar.png") { request in
            guard request.header("Range") != nil else {
                var script = RouteScript.data(big, contentType: "image/png", headers: ["ETag": "\"v1\""])
                script.servesRanges = true
                return script
            }
            let count = big.count - kept.data.count
            return RouteScript(status: 206, body: .data(big.prefix(count)),
                               headers: ["ETag": "\"v1\"", "Content-Type": "image/png",
                                         "Content-Range": "bytes 0-\(count - 1)/\(big.count)"])
        }
        let (data, _) = try await fixture.pipeline.data(for: ImageRequest(url: url))
        #expect(data == big)
        #expect(fixture.server.requestCount(for: "/liar.png") == 3)
        #expect(Self.store(fixture).count == 0)
        try await fixture.finish()
    }

    @Test("a weak ETag never sends Range", arguments: LoaderFactory.all)
    func weakETagNeverResumes(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        let big = try await Self.bigImage()
        let url = Self.serveDropping(fixture.server, "/weak.png", data: big, headers: ["ETag": "W/\"v1\""])
        try await Self.failedFirstLoad(fixture, url)
        #expect(Self.store(fixture).count == 0)
        fixture.server.updateRoute("/weak.png") { $0.fault = nil }
        let (data, _) = try await fixture.pipeline.data(for: ImageRequest(url: url))
        #expect(data == big)
        #expect(fixture.server.lastRequest(for: "/weak.png")?.header("Range") == nil)
        try await fixture.finish()
    }

    @Test("a response without Accept-Ranges never sends Range", arguments: LoaderFactory.all)
    func noAcceptRangesNeverResumes(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        let big = try await Self.bigImage()
        let url = Self.serveDropping(fixture.server, "/plain.png", data: big, servesRanges: false)
        try await Self.failedFirstLoad(fixture, url)
        #expect(Self.store(fixture).count == 0)
        fixture.server.updateRoute("/plain.png") { $0.fault = nil }
        let (data, _) = try await fixture.pipeline.data(for: ImageRequest(url: url))
        #expect(data == big)
        #expect(fixture.server.lastRequest(for: "/plain.png")?.header("Range") == nil)
        try await fixture.finish()
    }

    @Test("a Last-Modified as old as Date is no validator; one older by a second is", arguments: [LoaderFactory.urlSession])
    func lastModifiedValidator(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        let big = try await Self.bigImage()
        let now = Date()
        let format = { (date: Date) -> String in
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            return formatter.string(from: date)
        }
        let same = Self.serveDropping(fixture.server, "/same.png", data: big, headers: ["Date": format(now), "Last-Modified": format(now)])
        try await Self.failedFirstLoad(fixture, same)
        #expect(Self.store(fixture).count == 0)
        let older = Self.serveDropping(fixture.server, "/older.png", data: big,
                                       headers: ["Date": format(now), "Last-Modified": format(now.addingTimeInterval(-60))])
        try await Self.failedFirstLoad(fixture, older)
        #expect(Self.store(fixture).resumableData(for: older)?.validator == format(now.addingTimeInterval(-60)))
        fixture.server.updateRoute("/older.png") { $0.fault = nil }
        let (data, _) = try await fixture.pipeline.data(for: ImageRequest(url: older))
        #expect(data == big)
        #expect(fixture.server.responseCount(for: "/older.png", status: 206) == 1)
        try await fixture.finish()
    }

    @Test("a server that ignores Range and answers 200 still gives the right image", arguments: LoaderFactory.all)
    func serverIgnoringRangeGivesTheWholeImage(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        let big = try await Self.bigImage()
        let url = Self.serveDropping(fixture.server, "/ignores.png", data: big)
        try await Self.failedFirstLoad(fixture, url)
        #expect(Self.store(fixture).count == 1)
        // It still says it accepts ranges, but answers every request whole.
        fixture.server.updateRoute("/ignores.png") { script in
            script.fault = nil
            script.servesRanges = false
            script.headers["Accept-Ranges"] = "bytes"
        }
        let (data, _) = try await fixture.pipeline.data(for: ImageRequest(url: url))
        #expect(data == big)
        #expect(fixture.server.lastRequest(for: "/ignores.png")?.header("Range") != nil)
        #expect(fixture.server.responseCount(for: "/ignores.png", status: 206) == 0)
        #expect(Self.store(fixture).count == 0)
        try await fixture.finish()
    }

    @Test("a resume survives a new pipeline through the disk cache, and the whole image is stored",
          arguments: LoaderFactory.all)
    func resumeFromDiskAfterRestart(loader: LoaderFactory) async throws {
        try await Self.onDisk(loader) { server, big, pipeline in
            let url = Self.serveDropping(server, "/disk.png", data: big, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=3600"])
            let (first, firstLoader) = pipeline()
            await #expect(throws: (any Error).self) { try await first.data(for: ImageRequest(url: url)) }
            let keptBytes = try #require(first.configuration.resumableData?.resumableData(for: url)).data.count
            try await waitFor { first.activeTaskCount == 0 }
            try await shutDown(firstLoader)

            server.updateRoute("/disk.png") { $0.fault = nil }
            let (second, secondLoader) = pipeline()
            let response = try await second.response(for: ImageRequest(url: url, thumbnail: ThumbnailOptions(maxPixelSize: 64)))
            #expect(response.resumedFromByte == keptBytes)
            #expect(response.cacheType == .none)
            #expect(server.responseCount(for: "/disk.png", status: 206) == 1)

            let (third, thirdLoader) = pipeline()
            let (data, _) = try await third.data(for: ImageRequest(url: url))
            #expect(data == big)
            #expect(server.requestCount(for: "/disk.png") == 2)
            try await waitFor { second.activeTaskCount == 0 && third.activeTaskCount == 0 }
            try await shutDown(secondLoader)
            try await shutDown(thirdLoader)
        }
    }

    @Test("with disk writes turned off a dropped download keeps its bytes in memory only",
          arguments: LoaderFactory.all)
    func diskWritesOffKeepsThePartialBodyInMemory(loader: LoaderFactory) async throws {
        try await Self.onDisk(loader) { server, big, pipeline in
            let url = Self.serveDropping(server, "/memory-only.png", data: big)
            let (first, firstLoader) = pipeline()
            await #expect(throws: (any Error).self) {
                try await first.data(for: ImageRequest(url: url, options: .disableDiskCacheWrites))
        }
        let keptBytes = try #require(first.configuration.resumableData?.resumableData(for: url)).data.count
        try await waitFor { first.activeTaskCount == 0 }

        // A new pipeline on the same disk finds nothing to continue: it asks for the whole image.
        server.updateRoute("/memory-only.png") { $0.fault = nil }
        let (second, secondLoader) = pipeline()
        let whole = try await second.response(for: ImageRequest(url: url, options: .disableDiskCacheWrites))
        #expect(whole.resumedFromByte == nil)
        #expect(server.responseCount(for: "/memory-only.png", status: 206) == 0)

        // The pipeline that kept the bytes in memory continues them.
        let resumed = try await first.response(for: ImageRequest(url: url, options: .disableDiskCacheWrites))
        #expect(resumed.resumedFromByte == keptBytes)
        #expect(server.responseCount(for: "/memory-only.png", status: 206) == 1)
        try await waitFor { first.activeTaskCount == 0 && second.activeTaskCount == 0 }
        try await shutDown(firstLoader)
        try await shutDown(secondLoader)
        }
    }
}
