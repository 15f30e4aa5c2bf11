import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageServer
import Shashin
import Testing

/// Low data over real HTTP (`ImageRequest.lowDataImage`, `NetworkConstraint`): the switch picks
/// the low-data source and the primary is never requested (unless the disk cache already has it);
/// off, the primary loads; the switch flips between requests; the low-data image is never
/// stored under the primary's keys.
@Suite("Over HTTP: a constrained network loads the low-data source")
struct LiveLowDataTests {
    /// A server with a 200×150 primary and an 80×60 low-data rendition, and a request for both.
    func start(_ loader: LoaderFactory, constrained: Bool, disk: DiskCache? = nil)
        async throws -> (LiveFixture, ImageRequest, NetworkConstraint) {
        let constraint = NetworkConstraint(isConstrained: constrained)
        let fixture = try await LiveFixture.start(loader) {
            $0.networkConstraint = constraint
            $0.diskCache = disk
        }
        // Both storable for ten minutes, so that a disk cache keeps whichever loads.
        let headers = ["Cache-Control": "max-age=600"]
        fixture.server.setRoute("/full.jpg", .image(ImageSpec(format: .jpeg, width: 200, height: 150, seed: 1), headers: headers))
        fixture.server.setRoute("/small.jpg", .image(ImageSpec(format: .jpeg, width: 80, height: 60, seed: 2), headers: headers))
        let primary = fixture.server.url("/full.jpg"), small = fixture.server.url("/small.jpg")
        var request = ImageRequest(url: primary)
        request.lowDataImage = .url(small)
        return (fixture, request, constraint)
    }

    @Test("with the constrained switch on, the low-data source loads and the primary is never requested",
          arguments: LoaderFactory.all)
    func constrainedLoadsLowData(loader: LoaderFactory) async throws {
        let (fixture, request, _) = try await start(loader, constrained: true)
        let response = try await fixture.pipeline.response(for: request)
        #expect(response.isLowData)
        #expect(response.source.url == fixture.server.url("/small.jpg"))
        #expect(response.urlResponse?.url == fixture.server.url("/small.jpg"))
        #expect(response.image.testBitmap.width == 80)
        #expect(fixture.server.requestCount(for: "/small.jpg") == 1)
        #expect(fixture.server.requestCount(for: "/full.jpg") == 0)
        try await fixture.finish()
    }

    @Test("with the switch off, the primary loads and the low-data source is never requested",
          arguments: LoaderFactory.all)
    func unconstrainedLoadsPrimary(loader: LoaderFactory) async throws {
        let (fixture, request, _) = try await start(loader, constrained: false)
        let response = try await fixture.pipeline.response(for: request)
        #expect(!response.isLowData)
        #expect(response.source.url == fixture.server.url("/full.jpg"))
        #expect(response.image.testBitmap.width == 200)
        #expect(fixture.server.requestCount(for: "/full.jpg") == 1)
        #expect(fixture.server.requestCount(for: "/small.jpg") == 0)
        try await fixture.finish()
    }

    @Test("flipping the switch between requests changes what loads", arguments: LoaderFactory.all)
    func flipping(loader: LoaderFactory) async throws {
        let (fixture, request, constraint) = try await start(loader, constrained: true)
        #expect(try await fixture.pipeline.response(for: request).image.testBitmap.width == 80)
        constraint.isConstrained = false
        let full = try await fixture.pipeline.response(for: request)
        #expect(!full.isLowData && full.cacheType == .none && full.image.testBitmap.width == 200)
        constraint.isConstrained = true
        // The full image is in memory now: showing it costs nothing.
        let again = try await fixture.pipeline.response(for: request)
        #expect(!again.isLowData && again.cacheType == .memory && again.image.testBitmap.width == 200)
        #expect(fixture.server.requestCount(for: "/full.jpg") == 1)
        #expect(fixture.server.requestCount(for: "/small.jpg") == 1)
        try await fixture.finish()
    }

    @Test("the low-data source's own thumbnail is the one decoded", arguments: LoaderFactory.all)
    func ownThumbnail(loader: LoaderFactory) async throws {
        let (fixture, _, _) = try await start(loader, constrained: true)
        var request = ImageRequest(url: fixture.server.url("/full.jpg"), thumbnail: .init(maxPixelSize: 100))
        request.lowDataImage = .url(fixture.server.url("/small.jpg"), thumbnail: .init(maxPixelSize: 40))
        let response = try await fixture.pipeline.response(for: request)
        #expect(response.isLowData && response.image.testBitmap.width == 40)
        try await fixture.finish()
    }

    @Test("the low-data image is stored on disk under its own URL, never the primary's", arguments: LoaderFactory.all)
    func diskKeepsKeysApart(loader: LoaderFactory) async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let disk = try DiskCache(configuration: .init(directory: folder))
        let (fixture, request, constraint) = try await start(loader, constrained: true, disk: disk)
        #expect(try await fixture.pipeline.response(for: request).isLowData)
        // A full-quality load from the disk cache alone misses: the low-data bytes are not the primary's.
        constraint.isConstrained = false
        var cacheOnly = request
        cacheOnly.options = [.disableMemoryCacheReads, .returnCacheDataDontLoad]
        await #expect(throws: ImagePipelineError.cacheMiss) { try await fixture.pipeline.response(for: cacheOnly) }
        // The low-data bytes are on disk, under their own URL.
        var smallOnly = ImageRequest(url: fixture.server.url("/small.jpg"), options: [.disableMemoryCacheReads, .returnCacheDataDontLoad])
        smallOnly.lowDataImage = nil
        #expect(try await fixture.pipeline.response(for: smallOnly).cacheType == .disk)
        // Constrained again, with memory skipped, the low-data image comes from the disk.
        constraint.isConstrained = true
        var diskOnly = request
        diskOnly.options = .disableMemoryCacheReads
        let stored = try await fixture.pipeline.response(for: diskOnly)
        #expect(stored.isLowData && stored.cacheType == .disk && stored.image.testBitmap.width == 80)
        #expect(fixture.server.requestCount(for: "/full.jpg") == 0)
        #expect(fixture.server.requestCount(for: "/small.jpg") == 1)
        try await fixture.finish()
    }

    @Test("constrained, the full image stored on disk is shown and nothing is requested", arguments: LoaderFactory.all)
    func storedPrimaryWins(loader: LoaderFactory) async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let disk = try DiskCache(configuration: .init(directory: folder))
        let (fixture, request, constraint) = try await start(loader, constrained: false, disk: disk)
        #expect(try await fixture.pipeline.response(for: request).cacheType == .none)
        constraint.isConstrained = true
        var skipsMemory = request
        skipsMemory.options = .disableMemoryCacheReads
        let stored = try await fixture.pipeline.response(for: skipsMemory)
        #expect(!stored.isLowData && stored.cacheType == .disk && stored.image.testBitmap.width == 200)
        #expect(fixture.server.requestCount(for: "/full.jpg") == 1)
        #expect(fixture.server.requestCount(for: "/small.jpg") == 0)
        try await fixture.finish()
    }
}
