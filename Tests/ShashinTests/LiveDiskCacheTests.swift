import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageServer
import Shashin
import Testing

/// The pipeline with a `DiskCache`, over real HTTP: memory → disk → network, revalidation, the
/// request policies and stored processed results. (A failing disk: `PipelineDiskCacheTests`.)
@Suite("Pipeline with a disk cache, over HTTP")
struct LiveDiskCacheTests {
    /// A second pipeline on the same storage: an app after a restart (empty memory, same disk).
    static func pipeline(_ loader: LoaderFactory, _ storage: any DataCaching, policy: DiskCachePolicy = .originals,
                         _ configure: (inout ImagePipeline.Configuration) -> Void = { _ in }) -> ImagePipeline {
        var configuration = ImagePipeline.Configuration()
        configuration.dataLoader = loader.make()
        configuration.diskCache = storage
        configuration.diskCachePolicy = policy
        configure(&configuration)
        return ImagePipeline(configuration: configuration)
    }

    func serve(_ server: ImageServer, _ path: String, headers: [String: String]) -> URL {
        server.setRoute(path, RouteScript.image(ImageSpec(format: .jpeg, width: 64, height: 48, seed: 3), headers: headers))
        return server.url(path)
    }

    @Test("a fresh stored original is decoded from disk after a restart, without the network", arguments: LoaderFactory.all)
    func diskAfterRestart(loader: LoaderFactory) async throws {
        let server = ImageServer()
        try await server.start()
        let folder = temporaryFolder()
        let storage = try DiskCache(configuration: .init(directory: folder))
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = serve(server, "/a.jpg", headers: ["Cache-Control": "max-age=600"])
        let first = try await Self.pipeline(loader, storage).response(for: ImageRequest(url: url))
        #expect(first.cacheType == .none)
        let second = try await Self.pipeline(loader, storage).response(for: ImageRequest(url: url))
        #expect(second.cacheType == .disk)
        #expect(second.image.testBitmap == first.image.testBitmap)
        #expect(server.requestCount(for: "/a.jpg") == 1)
        await server.stop()
    }

    @Test("a stale original with an ETag is revalidated: 304, source revalidated", arguments: LoaderFactory.all)
    func revalidated(loader: LoaderFactory) async throws {
        let server = ImageServer()
        try await server.start()
        let folder = temporaryFolder()
        let storage = try DiskCache(configuration: .init(directory: folder))
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = serve(server, "/b.jpg", headers: ["Cache-Control": "no-cache", "ETag": "\"b1\""])
        _ = try await Self.pipeline(loader, storage).response(for: ImageRequest(url: url))
        let second = try await Self.pipeline(loader, storage).response(for: ImageRequest(url: url))
        #expect(second.cacheType == .revalidated)
        #expect(server.lastRequest(for: "/b.jpg")?.header("If-None-Match") == "\"b1\"")
        #expect((second.urlResponse as? HTTPURLResponse)?.statusCode == 200)
        await server.stop()
    }

    @Test("cache-only: a miss is cacheMiss without a request; offline first serves the stale copy", arguments: LoaderFactory.all)
    func policies(loader: LoaderFactory) async throws {
        let server = ImageServer()
        try await server.start()
        let folder = temporaryFolder()
        let storage = try DiskCache(configuration: .init(directory: folder))
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = serve(server, "/c.jpg", headers: ["Cache-Control": "max-age=0"])
        await #expect(throws: ImagePipelineError.cacheMiss) {
            try await Self.pipeline(loader, storage).image(for: ImageRequest(url: url, options: .returnCacheDataDontLoad))
        }
        #expect(server.requestCount(for: "/c.jpg") == 0)
        _ = try await Self.pipeline(loader, storage).image(for: ImageRequest(url: url))
        let offline = try await Self.pipeline(loader, storage).response(for: ImageRequest(url: url, options: .returnCacheDataElseLoad))
        #expect(offline.cacheType == .disk)
        #expect(server.requestCount(for: "/c.jpg") == 1)
        await server.stop()
    }

    @Test("without a disk cache, cache-only fails on a memory miss", arguments: LoaderFactory.all)
    func cacheOnlyWithoutDisk(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        let url = fixture.serveImage("/d.jpg")
        await #expect(throws: ImagePipelineError.cacheMiss) {
            try await fixture.pipeline.image(for: ImageRequest(url: url, options: .returnCacheDataDontLoad))
        }
        #expect(fixture.server.requestCount(for: "/d.jpg") == 0)
        try await fixture.finish()
    }

    @Test("processed policy: thumbnails and processed results come back from disk; originals are not kept", arguments: LoaderFactory.all)
    func processedResults(loader: LoaderFactory) async throws {
        let server = ImageServer()
        try await server.start()
        let folder = temporaryFolder()
        let storage = try DiskCache(configuration: .init(directory: folder))
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = serve(server, "/f.jpg", headers: ["Cache-Control": "max-age=600"])
        let request = ImageRequest(url: url, thumbnail: ThumbnailOptions(maxPixelSize: 32), processors: [.circle])
        let pipeline = Self.pipeline(loader, storage, policy: .processed)
        let first = try await pipeline.response(for: request)
        #expect(first.cacheType == .none)
        try await waitFor { pipeline.backgroundWorkCount == 0 } // stored in the background
        #expect(storage.count == 1)
        #expect(try storage.entries().allSatisfy { $0.key.hasPrefix("processed ") })
        let second = try await Self.pipeline(loader, storage, policy: .processed).response(for: request)
        #expect(second.cacheType == .disk)
        #expect(second.image.pixelWidth == first.image.pixelWidth && second.image.pixelHeight == first.image.pixelHeight)
        #expect(second.image.testBitmap.pixel(x: 0, y: 0).a == 0) // the circle's transparent corner survived: stored as PNG
        #expect(server.requestCount(for: "/f.jpg") == 1)
        // A request for the plain original still needs the network: only processed results are kept.
        #expect(try await Self.pipeline(loader, storage, policy: .processed).response(for: ImageRequest(url: url)).cacheType == .none)
        await server.stop()
    }

    @Test("policy all: a new size is made from the stored original, without the network", arguments: LoaderFactory.all)
    func allPolicy(loader: LoaderFactory) async throws {
        let server = ImageServer()
        try await server.start()
        let folder = temporaryFolder()
        let storage = try DiskCache(configuration: .init(directory: folder))
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = serve(server, "/g.jpg", headers: ["Cache-Control": "max-age=600"])
        _ = try await Self.pipeline(loader, storage, policy: .all).response(for: ImageRequest(url: url, thumbnail: ThumbnailOptions(maxPixelSize: 32)))
        let other = try await Self.pipeline(loader, storage, policy: .all).response(for: ImageRequest(url: url, thumbnail: ThumbnailOptions(maxPixelSize: 16)))
        #expect(other.cacheType == .disk)
        #expect(server.requestCount(for: "/g.jpg") == 1)
        await server.stop()
    }

    @Test("a processed result is used only while the original would be, and only for the same credentials", arguments: LoaderFactory.all)
    func processedFollowsHTTPAndCredentials(loader: LoaderFactory) async throws {
        let server = ImageServer()
        try await server.start()
        let folder = temporaryFolder()
        let storage = try DiskCache(configuration: .init(directory: folder))
        defer { try? FileManager.default.removeItem(at: folder) }
        let revalidated = serve(server, "/h.jpg", headers: ["Cache-Control": "no-cache", "ETag": "\"h\""])
        let thumbnail = ThumbnailOptions(maxPixelSize: 16)
        for _ in 0..<2 {
            let pipeline = Self.pipeline(loader, storage, policy: .processed)
            #expect(try await pipeline.response(for: ImageRequest(url: revalidated, thumbnail: thumbnail)).cacheType == .none)
            try await waitFor { pipeline.backgroundWorkCount == 0 }
        }
        #expect(server.requestCount(for: "/h.jpg") == 2) // no-cache: the stored thumbnail is never used unasked

        let shared = serve(server, "/i.jpg", headers: ["Cache-Control": "max-age=600"])
        func request(_ token: String) -> ImageRequest {
            var urlRequest = URLRequest(url: shared)
            urlRequest.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            return ImageRequest(source: .urlRequest(urlRequest), thumbnail: thumbnail)
        }
        let alice = Self.pipeline(loader, storage, policy: .processed)
        _ = try await alice.response(for: request("alice"))
        try await waitFor { alice.backgroundWorkCount == 0 }
        #expect(try await Self.pipeline(loader, storage, policy: .processed).response(for: request("alice")).cacheType == .disk)
        #expect(try await Self.pipeline(loader, storage, policy: .processed).response(for: request("bob")).cacheType == .none)
        await server.stop()
    }
}
