import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import ShashinCore

/// Low data (`ImageRequest.lowDataImage`): while the configuration's `NetworkConstraint` is on,
/// the low-data source loads and the request's own is never asked; when the system refuses the
/// request's own download for a constrained network (`networkConstrained`), the low-data source
/// loads instead; the low-data image never answers a request at full quality.
@Suite("Low data: a constrained network loads the low-data source")
struct LowDataImageTests {
    static let primaryURL = URL(string: "https://images.test/full.timg")!
    static let lowURL = URL(string: "https://images.test/small.timg")!
    static let mirrorURL = URL(string: "https://mirror.test/full.timg")!
    let full = TestImages.encode(width: 8, height: 8, fill: 1)
    let small = TestImages.encode(width: 4, height: 4, fill: 2)

    /// A pipeline over a loader that serves the full image at its URL (and the mirror's), the
    /// small one at its own, and records every request.
    func fixture(constrained: Bool, primary: ScriptedHTTPLoader.Answer? = nil)
        -> (ImagePipeline, ScriptedHTTPLoader, NetworkConstraint, MemoryCache) {
        let full = full, small = small
        let loader = ScriptedHTTPLoader { request in
            if request.url == Self.lowURL { return .init(body: small) }
            return primary ?? .init(body: full)
        }
        let constraint = NetworkConstraint(isConstrained: constrained)
        let cache = MemoryCache(costLimit: 10 << 20)
        var configuration = ImagePipeline.Configuration(decoder: TestDecoder())
        configuration.dataLoader = loader
        configuration.memoryCache = cache
        configuration.networkConstraint = constraint
        return (ImagePipeline(configuration: configuration), loader, constraint, cache)
    }

    func request(thumbnail: ThumbnailOptions? = nil) -> ImageRequest {
        var request = ImageRequest(url: Self.primaryURL)
        request.lowDataImage = .url(Self.lowURL, thumbnail: thumbnail)
        return request
    }

    @Test func constrainedLoadsTheLowDataImageAndNeverAsksThePrimary() async throws {
        let (pipeline, loader, _, _) = fixture(constrained: true)
        let response = try await pipeline.response(for: request())
        #expect(response.isLowData)
        #expect(response.source.url == Self.lowURL)
        #expect(response.cacheType == .none)
        #expect(response.image.pixelWidth == 4)
        #expect(response.request.url == Self.primaryURL)
        #expect(loader.requests.map(\.url) == [Self.lowURL])
    }

    @Test func unconstrainedLoadsThePrimary() async throws {
        let (pipeline, loader, _, _) = fixture(constrained: false)
        let response = try await pipeline.response(for: request())
        #expect(!response.isLowData)
        #expect(response.source.url == Self.primaryURL)
        #expect(response.image.pixelWidth == 8)
        #expect(loader.requests.map(\.url) == [Self.primaryURL])
    }

    @Test func flippingTheSwitchBetweenRequestsChangesWhatLoads() async throws {
        let (pipeline, loader, constraint, _) = fixture(constrained: true)
        let low = try await pipeline.response(for: request())
        #expect(low.isLowData && low.image.pixelWidth == 4)

        // Off: the low-data image in memory does not answer; the primary downloads.
        constraint.isConstrained = false
        let full = try await pipeline.response(for: request())
        #expect(!full.isLowData && full.image.pixelWidth == 8 && full.cacheType == .none)
        #expect(loader.requests.map(\.url) == [Self.lowURL, Self.primaryURL])

        // On again: the full image is in memory, and costs nothing to show.
        constraint.isConstrained = true
        let again = try await pipeline.response(for: request())
        #expect(!again.isLowData && again.image.pixelWidth == 8 && again.cacheType == .memory)
        #expect(loader.requests.count == 2)
    }

    @Test func theLowDataImageIsCachedUnderItsOwnKeyNeverThePrimarys() async throws {
        let (pipeline, _, constraint, cache) = fixture(constrained: true)
        let request = request()
        _ = try await pipeline.response(for: request)
        #expect(cache.image(forKey: request.cacheKey) == nil)
        let lowKey = request.lowDataRequest(request.lowDataImage!).cacheKey
        #expect(lowKey != request.cacheKey)
        #expect(cache.image(forKey: lowKey)?.pixelWidth == 4)

        // Constrained, a memory hit is the low-data image, and says so.
        guard case .cached(let cached) = pipeline.loadImage(request) else {
            Issue.record("expected the low-data image from memory")
            return
        }
        #expect(cached.isLowData && cached.source.url == Self.lowURL && cached.image.pixelWidth == 4)

        // Unconstrained, the request misses memory: it never gets the low-data image.
        constraint.isConstrained = false
        #expect(pipeline.cachedImage(for: request) == nil)
    }

    @Test func removingTheRequestsImageRemovesItsLowDataImageToo() async throws {
        let (pipeline, loader, constraint, cache) = fixture(constrained: true)
        let request = request()
        let lowKey = request.lowDataRequest(request.lowDataImage!).cacheKey
        _ = try await pipeline.response(for: request)
        constraint.isConstrained = false
        _ = try await pipeline.response(for: request)
        #expect(cache.image(forKey: lowKey) != nil && cache.image(forKey: request.cacheKey) != nil)

        // The same image asked for without its low-data source: only its own goes.
        try await pipeline.removeCachedImage(for: ImageRequest(url: Self.primaryURL))
        #expect(cache.image(forKey: request.cacheKey) == nil && cache.image(forKey: lowKey) != nil)

        try await pipeline.removeCachedImage(for: request)
        #expect(cache.image(forKey: lowKey) == nil)
        constraint.isConstrained = true
        let again = try await pipeline.response(for: request)
        #expect(again.isLowData && again.cacheType == .none)
        #expect(loader.requests.map(\.url) == [Self.lowURL, Self.primaryURL, Self.lowURL])
    }

    @Test func theLowDataThumbnailDefaultsToTheRequestsAndMayBeItsOwn() async throws {
        let (pipeline, _, _, _) = fixture(constrained: true)
        var inherited = ImageRequest(url: Self.primaryURL, thumbnail: .init(maxPixelSize: 2))
        inherited.lowDataImage = .url(Self.lowURL)
        #expect(try await pipeline.response(for: inherited).image.pixelWidth == 2)
        let own = request(thumbnail: .init(maxPixelSize: 1))
        #expect(try await pipeline.response(for: own).image.pixelWidth == 1)
    }

    @Test func aDataSourceCanBeTheLowDataImage() async throws {
        let (pipeline, loader, _, _) = fixture(constrained: true)
        let small = small
        var request = ImageRequest(url: Self.primaryURL)
        request.lowDataImage = LowDataImage(.data(id: "placeholder-1") { small })
        let response = try await pipeline.response(for: request)
        #expect(response.isLowData && response.cacheType == .none)
        #expect(response.source.dataID == "placeholder-1")
        #expect(loader.requests.isEmpty)
    }

    @Test func aFailingLowDataImageFailsWithItsOwnTypedError() async throws {
        let (pipeline, loader, _, _) = fixture(constrained: true)
        var request = ImageRequest(url: Self.primaryURL)
        request.lowDataImage = .url(URL(string: "https://images.test/missing")!)
        loader.answer { _ in .init(status: 404) }
        await #expect(throws: ImagePipelineError.httpStatus(404)) { try await pipeline.response(for: request) }
        #expect(loader.requests.map(\.url) == [URL(string: "https://images.test/missing")!])
    }

    @Test func withoutALowDataImageTheSwitchChangesNothing() async throws {
        let (pipeline, loader, _, _) = fixture(constrained: true)
        let response = try await pipeline.response(for: ImageRequest(url: Self.primaryURL))
        #expect(!response.isLowData && response.image.pixelWidth == 8)
        #expect(loader.requests.map(\.url) == [Self.primaryURL])
    }

    /// The system's refusal (on Apple platforms, a `URLError` for Low Data Mode, which the
    /// loader turns into `networkConstrained`) switches to the low-data source, not to the
    /// alternative sources, and is not retried.
    @Test func aRefusalForAConstrainedNetworkLoadsTheLowDataImage() async throws {
        let (pipeline, loader, _, _) = fixture(constrained: false, primary: .init(error: ImagePipelineError.networkConstrained))
        var request = request()
        request.alternativeSources = [.url(Self.mirrorURL)]
        request.retryPolicy = RetryPolicy(maxAttempts: 3, clock: ImmediateRetryClock())
        let response = try await pipeline.response(for: request)
        #expect(response.isLowData && response.source.url == Self.lowURL && response.image.pixelWidth == 4)
        #expect(loader.requests.map(\.url) == [Self.primaryURL, Self.lowURL])
    }

    @Test func aRefusalWithoutALowDataImageEndsTheTaskWithNetworkConstrained() async throws {
        let (pipeline, _, _, _) = fixture(constrained: false, primary: .init(error: ImagePipelineError.networkConstrained))
        await #expect(throws: ImagePipelineError.networkConstrained) {
            try await pipeline.response(for: ImageRequest(url: Self.primaryURL))
        }
        #expect(ImagePipelineError.networkConstrained.description.contains("Low Data Mode"))
        #expect(!RetryPolicy.isTransient(ImagePipelineError.networkConstrained))
    }

    @Test func requestsForOneLowDataImageShareItsDownload() async throws {
        let loader = ControlledDataLoader()
        var configuration = ImagePipeline.Configuration(decoder: TestDecoder())
        configuration.dataLoader = loader
        configuration.networkConstraint = NetworkConstraint(isConstrained: true)
        let pipeline = ImagePipeline(configuration: configuration)
        let tasks = (0..<3).map { _ in pipeline.imageTask(with: request()) }
        try await loader.respond(to: Self.lowURL, with: small)
        for task in tasks { #expect(try await task.response.isLowData) }
        #expect(loader.startedURLs == [Self.lowURL])
    }

    @Test func constrainedShowsTheRequestsImageFromTheDiskCacheWithoutTheNetwork() async throws {
        let full = full, small = small
        let disk = InMemoryDataCache()
        let loader = ScriptedHTTPLoader { request in
            request.url == Self.lowURL ? .init(body: small) : .init(headers: ["Cache-Control": "max-age=600"], body: full)
        }
        func pipeline(constrained: Bool) -> ImagePipeline {
            var configuration = ImagePipeline.Configuration(decoder: TestDecoder())
            configuration.dataLoader = loader
            configuration.memoryCache = MemoryCache(costLimit: 10 << 20)
            configuration.diskCache = disk
            configuration.networkConstraint = NetworkConstraint(isConstrained: constrained)
            return ImagePipeline(configuration: configuration)
        }
        _ = try await pipeline(constrained: false).response(for: request())
        // After a relaunch (memory empty), on a constrained network: the stored full image.
        let stored = try await pipeline(constrained: true).response(for: request())
        #expect(!stored.isLowData && stored.cacheType == .disk && stored.image.pixelWidth == 8)
        #expect(loader.requests.map(\.url) == [Self.primaryURL])
        // A request that may not read the disk goes to its low-data source.
        var skipsDisk = request()
        skipsDisk.options = .disableDiskCacheReads
        #expect(try await pipeline(constrained: true).response(for: skipsDisk).isLowData)
        #expect(loader.requests.map(\.url) == [Self.primaryURL, Self.lowURL])
    }

    /// Only Apple's URLSession knows `allowsConstrainedNetworkAccess`: there the request's own
    /// source is sent with it off, and shares no download with a request sent with it on.
    @Test func theSystemMayRefuseOnlyARequestWithALowDataImage() async throws {
        let (pipeline, loader, _, _) = fixture(constrained: false)
        _ = try await pipeline.response(for: request())
        var plain = ImageRequest(url: Self.primaryURL, thumbnail: .init(maxPixelSize: 4))
        _ = try await pipeline.response(for: plain)
        #expect(loader.requests.count == 2)
        #if canImport(FoundationNetworking)
        #expect(!loader.requests.contains { $0.refusesConstrainedNetwork })
        #expect(CacheKeys(rule: nil).fetchKey(for: request().refusingConstrainedNetwork()) == CacheKeys(rule: nil).fetchKey(for: plain))
        #else
        #expect(loader.requests.map(\.allowsConstrainedNetworkAccess) == [false, true])
        plain.lowDataImage = .url(Self.lowURL)
        #expect(CacheKeys(rule: nil).fetchKey(for: plain.refusingConstrainedNetwork()) != CacheKeys(rule: nil).fetchKey(for: plain))
        #endif
    }

    @Test func theLowDataImageIsMadeAsTheRequestAsks() async throws {
        let (pipeline, _, _, _) = fixture(constrained: true)
        let processor = CountingProcessor("tint")
        var request = ImageRequest(url: Self.primaryURL, processors: [processor], priority: .high,
                                   options: [.disableDiskCacheWrites, .reloadRevalidatingCachedData])
        request.imageID = "photo-7"
        request.animationDelivery = .frameSource
        request.lowDataImage = .url(Self.lowURL)
        let low = request.lowDataRequest(request.lowDataImage!)
        #expect(low.url == Self.lowURL && low.imageID == nil && low.alternativeSources.isEmpty)
        #expect(low.processors.map(\.identifier) == ["tint"] && low.priority == .high)
        #expect(low.options == request.options && low.animationDelivery == request.animationDelivery)
        #expect(low.cacheKey.url == Self.lowURL.absoluteString)
        let response = try await pipeline.response(for: request)
        #expect(response.isLowData && processor.calls.current == 1)
        #expect(response.image.testBitmap.pixels[0] == 3) // the small image's 2, tinted once
    }

    @Test func theSwitchIsSafeToFlipFromManyThreads() async {
        let constraint = NetworkConstraint()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<1_000 { group.addTask { constraint.isConstrained = index % 2 == 0 } }
        }
        constraint.isConstrained = true
        #expect(constraint.isConstrained)
    }
}
