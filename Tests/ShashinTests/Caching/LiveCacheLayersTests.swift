import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageServer
import Shashin
import Testing

/// One image in every layer over real HTTP: `removeCachedImage(for:)` takes it out of memory and
/// disk (each processed variant included), `storeCachedData(_:for:)` puts it in, and the
/// per-request switches keep a request off the disk.
@Suite("Over HTTP: one image in every cache layer")
struct LiveCacheLayersTests {
    static func spec(_ seed: UInt64 = 4) -> ImageSpec { ImageSpec(format: .jpeg, width: 80, height: 60, seed: seed) }

    @Test("removeCachedImage leaves no trace in memory or on disk, processed variants included")
    func removeLeavesNoTrace() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let disk = try DiskCache(configuration: .init(directory: folder))
        let memory = MemoryCache()
        let fixture = try await LiveFixture.start(.asyncHTTPClient) {
            $0.diskCache = disk
            $0.memoryCache = memory
            $0.diskCachePolicy = .all
            $0.imageIDRule = LiveImageIDTests.signatureRule
        }
        fixture.server.setRoute("/gone.jpg", RouteScript.image(Self.spec(), headers: ["Cache-Control": "max-age=3600", "ETag": "\"g\""]))
        fixture.server.setRoute("/kept.jpg", RouteScript.image(Self.spec(5), headers: ["Cache-Control": "max-age=3600"]))
        let url = LiveImageIDTests.signed(fixture.server, "/gone.jpg", 1)
        let variants = [
            ImageRequest(url: url),
            ImageRequest(url: url, thumbnail: .init(maxPixelSize: 20)),
            ImageRequest(url: url, processors: [.resize(width: 30)]),
            ImageRequest(url: url, processors: [.resize(width: 30), .circle]),
        ]
        // Each load past the memory cache: a stage made from a memory hit has no response whose
        // rules its stored result could carry, and is not stored on disk.
        for var request in variants {
            request.options = .disableMemoryCacheReads
            _ = try await fixture.pipeline.image(for: request)
        }
        _ = try await fixture.pipeline.image(for: fixture.server.url("/kept.jpg"))
        try await waitFor { fixture.pipeline.backgroundWorkCount == 0 }
        let stored = try disk.entries().map(\.key).filter { $0.contains("gone.jpg") }
        #expect(stored.count == 4, "the original and three processed results: \(stored)")

        // Removed through another signature, with no thumbnail or processors: the image goes.
        try await fixture.pipeline.removeCachedImage(for: ImageRequest(url: LiveImageIDTests.signed(fixture.server, "/gone.jpg", 9)))
        #expect(try disk.entries().filter { $0.key.contains("gone.jpg") }.isEmpty)
        for request in variants { #expect(fixture.pipeline.cachedImage(for: request) == nil) }
        #expect(try fixture.pipeline.cachedData(for: variants[0]) == nil)
        // The other image is untouched, in memory and on disk.
        #expect(fixture.pipeline.cachedImage(for: ImageRequest(url: fixture.server.url("/kept.jpg"))) != nil)
        #expect(try disk.entries().contains { $0.key.contains("kept.jpg") })
        #expect(memory.totalCount == 1)

        // The next load downloads again.
        _ = try await fixture.pipeline.image(for: variants[2])
        #expect(fixture.server.requestCount(for: "/gone.jpg") == 2)
        try await fixture.finish()
    }

    @Test("bytes stored by the app are decoded offline; cachedData reads them back")
    func storedDataServesOffline() async throws {
        let (fixture, _) = try await LiveFixture.startOnDisk()
        let url = fixture.server.url("/uploaded.jpg")
        let bytes = try await ImageGenerator.shared.data(for: Self.spec(6))
        #expect(try fixture.pipeline.storeCachedData(bytes, for: ImageRequest(url: url)))
        #expect(try fixture.pipeline.cachedData(for: ImageRequest(url: url)) == bytes)
        await fixture.server.stop()
        let response = try await fixture.pipeline.response(for: ImageRequest(url: url, thumbnail: .init(maxPixelSize: 40)))
        #expect(response.cacheType == .disk && response.image.pixelWidth == 40)
        #expect(fixture.server.requestCount(for: "/uploaded.jpg") == 0)
        try await fixture.finish()
    }

    @Test("a request that may not read the disk downloads; one that may not write stores nothing")
    func perRequestDiskSwitches() async throws {
        let (fixture, disk) = try await LiveFixture.startOnDisk()
        fixture.server.setRoute("/switch.jpg", RouteScript.image(Self.spec(7), headers: ["Cache-Control": "max-age=3600"]))
        let url = fixture.server.url("/switch.jpg")
        #expect(try await fixture.pipeline.response(for: ImageRequest(url: url, options: .disableDiskCacheWrites)).cacheType == .none)
        #expect(try disk.entries().isEmpty)
        #expect(try await fixture.pipeline.response(for: ImageRequest(url: url, options: .disableDiskCache)).cacheType == .none)
        #expect(try disk.entries().isEmpty)
        #expect(try await fixture.pipeline.response(for: ImageRequest(url: url)).cacheType == .none)
        #expect(try await fixture.pipeline.response(for: ImageRequest(url: url)).cacheType == .disk)
        #expect(try await fixture.pipeline.response(for: ImageRequest(url: url, options: .disableDiskCacheReads)).cacheType == .none)
        #expect(fixture.server.requestCount(for: "/switch.jpg") == 4)
        try await fixture.finish()
    }

    @Test("a request's minimumFreshness overrides the pipeline's")
    func perRequestMinimumFreshness() async throws {
        let (fixture, _) = try await LiveFixture.startOnDisk()
        fixture.server.setRoute("/stale.jpg", RouteScript.image(Self.spec(8), headers: ["Cache-Control": "max-age=0"]))
        let url = fixture.server.url("/stale.jpg")
        #expect(try await fixture.pipeline.response(for: ImageRequest(url: url)).cacheType == .none)
        var lenient = ImageRequest(url: url)
        lenient.httpCacheOptions = HTTPCache.Options()
        lenient.httpCacheOptions?.minimumFreshness = 3600
        #expect(try await fixture.pipeline.response(for: lenient).cacheType == .disk)
        #expect(try await fixture.pipeline.response(for: ImageRequest(url: url)).cacheType == .none)
        #expect(fixture.server.requestCount(for: "/stale.jpg") == 2)
        try await fixture.finish()
    }

    @Test("removeAllCaches empties memory and disk; removeAllImagesFromMemory only memory")
    func removeAll() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let disk = try DiskCache(configuration: .init(directory: folder))
        let fixture = try await LiveFixture.start(.asyncHTTPClient) { $0.diskCache = disk }
        fixture.server.setRoute("/all.jpg", RouteScript.image(Self.spec(9), headers: ["Cache-Control": "max-age=3600"]))
        let request = ImageRequest(url: fixture.server.url("/all.jpg"))
        _ = try await fixture.pipeline.image(for: request)
        fixture.pipeline.trimMemory()
        #expect(fixture.pipeline.cachedImage(for: request) == nil && disk.count == 1)
        _ = try await fixture.pipeline.image(for: request)
        try await fixture.pipeline.removeAllCaches()
        #expect(fixture.pipeline.cachedImage(for: request) == nil && disk.count == 0)
        try await fixture.finish()
    }

    @Test("storeCachedImage answers from memory at once and writes disk in the background; .memory leaves disk alone")
    func storedImageReachesEveryLayer() async throws {
        let (fixture, disk) = try await LiveFixture.startOnDisk {
            $0.diskCachePolicy = .all
            $0.memoryCache = MemoryCache()
        }
        let source = fixture.serveImage("/source.jpg", width: 64, height: 48)
        let image = try await fixture.pipeline.image(for: source)
        let small = try await fixture.pipeline.image(for: ImageRequest(url: source, thumbnail: .init(maxPixelSize: 32)))
        try await waitFor { fixture.pipeline.backgroundWorkCount == 0 }
        let before = try disk.entries().count

        // Never served: every answer below comes from what the app stored.
        let made = fixture.server.url("/made.jpg")
        let madeSmall = ImageRequest(url: made, thumbnail: .init(maxPixelSize: 32))
        fixture.pipeline.storeCachedImage(image, for: ImageRequest(url: made), caches: .memory)
        #expect(fixture.pipeline.cachedImage(for: ImageRequest(url: made)) != nil)
        try await waitFor { fixture.pipeline.backgroundWorkCount == 0 }
        #expect(try disk.entries().count == before)

        fixture.pipeline.storeCachedImage(image, for: ImageRequest(url: made))
        fixture.pipeline.storeCachedImage(small, for: madeSmall)
        #expect(fixture.pipeline.cachedImage(for: madeSmall)?.pixelWidth == 32)
        try await waitFor { fixture.pipeline.backgroundWorkCount == 0 }
        #expect(try disk.entries().count == before + 2)

        // A relaunch: a new pipeline on the same disk, memory empty.
        var configuration = ImagePipeline.Configuration()
        configuration.dataLoader = fixture.loader
        configuration.diskCache = disk
        configuration.diskCachePolicy = .all
        configuration.memoryCache = nil
        let relaunched = ImagePipeline(configuration: configuration)
        let original = try await relaunched.response(for: ImageRequest(url: made))
        #expect(original.cacheType == .disk && original.image.pixelWidth == 64)
        let thumbnail = try await relaunched.response(for: madeSmall)
        #expect(thumbnail.cacheType == .disk && thumbnail.image.pixelWidth == 32)
        #expect(fixture.server.requestCount(for: "/made.jpg") == 0)
        try await fixture.finish()
    }

    @Test("a streamed animation stored by the app keeps its frames on disk, as the file it came from")
    func storedStreamedAnimationKeepsItsFrames() async throws {
        let (fixture, _) = try await LiveFixture.startOnDisk {
            $0.diskCachePolicy = .all
            $0.animationDelivery = .frameSource
        }
        let gif = AnimatedGIFWriter.movingSquare(width: 40, height: 30, frames: 6)
        fixture.server.setRoute("/moving.gif", .data(gif, contentType: "image/gif"))
        let loaded = try await fixture.pipeline.response(for: ImageRequest(url: fixture.server.url("/moving.gif")))
        #expect(loaded.animation?.isStreamed == true)

        let made = ImageRequest(url: fixture.server.url("/made.gif"))
        fixture.pipeline.storeCachedImage(loaded.image, for: made)
        // With a thumbnail it has no frames to encode: nothing is stored for that size.
        fixture.pipeline.storeCachedImage(loaded.image, for: ImageRequest(url: made.url!, thumbnail: .init(maxPixelSize: 20)))
        try await waitFor { fixture.pipeline.backgroundWorkCount == 0 }
        #expect(try fixture.pipeline.cachedData(for: made) == gif)
        let again = try await fixture.pipeline.response(for: made)
        #expect(again.cacheType == .disk && again.animation?.frameCount == 6)
        #expect(fixture.server.requestCount(for: "/made.gif") == 0)
        try await fixture.finish()
    }
}
