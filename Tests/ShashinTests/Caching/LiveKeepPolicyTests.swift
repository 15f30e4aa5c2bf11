import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageServer
import Shashin
import Testing

/// The disk cache that keeps what the app tells it to, over real HTTP: every successful response
/// stored for a time whatever its headers say (`keepSuccessfulResponses(for:)`), never one sent
/// with credentials unless the app opts in, and the disk cache's `maxAge`.
@Suite("Over HTTP: keeping responses whatever their headers say")
struct LiveKeepPolicyTests {
    static let week: TimeInterval = 7 * 86_400

    static func pipeline(_ disk: DiskCache, policy: HTTPCache.StoragePolicy) -> ImagePipeline {
        var configuration = ImagePipeline.Configuration()
        configuration.dataLoader = LoaderFactory.urlSession.make()
        configuration.diskCache = disk
        configuration.httpCacheOptions.storagePolicy = policy
        return ImagePipeline(configuration: configuration)
    }

    @Test("a no-cache image kept for a week is served from disk offline after a relaunch; under HTTP's rules it fails")
    func noCacheServedOffline() async throws {
        for policy in [HTTPCache.StoragePolicy.keepSuccessfulResponses(for: Self.week), .followHeaders] {
            let folder = temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let server = ImageServer()
            try await server.start()
            server.setRoute("/nocache.jpg", RouteScript.image(ImageSpec(format: .jpeg, width: 48, height: 32, seed: 2),
                                                              headers: ["Cache-Control": "no-cache, max-age=0", "Pragma": "no-cache"]))
            let url = server.url("/nocache.jpg")
            do {
                let first = Self.pipeline(try DiskCache(configuration: .init(directory: folder)), policy: policy)
                #expect(try await first.response(for: ImageRequest(url: url)).cacheType == .none)
            }
            await server.stop()
            // A relaunch: a new pipeline on the same folder, empty memory, the server gone.
            let relaunched = Self.pipeline(try DiskCache(configuration: .init(directory: folder)), policy: policy)
            if policy == .followHeaders {
                await #expect(throws: (any Error).self) { try await relaunched.response(for: ImageRequest(url: url)) }
            } else {
                let response = try await relaunched.response(for: ImageRequest(url: url))
                #expect(response.cacheType == .disk && response.image.pixelWidth == 48)
            }
            #expect(server.requestCount(for: "/nocache.jpg") == 1)
        }
    }

    @Test("no-store is kept too under the override", arguments: LoaderFactory.all)
    func noStoreKept(loader: LoaderFactory) async throws {
        let (fixture, _) = try await LiveFixture.startOnDisk(loader) {
            $0.httpCacheOptions.storagePolicy = .keepSuccessfulResponses(for: Self.week)
        }
        fixture.server.setRoute("/nostore.jpg", RouteScript.image(ImageSpec(format: .jpeg, width: 30, height: 20, seed: 3),
                                                                  headers: ["Cache-Control": "no-store"]))
        let url = fixture.server.url("/nostore.jpg")
        #expect(try await fixture.pipeline.response(for: ImageRequest(url: url)).cacheType == .none)
        #expect(try await fixture.pipeline.response(for: ImageRequest(url: url)).cacheType == .disk)
        #expect(fixture.server.requestCount(for: "/nostore.jpg") == 1)
        try await fixture.finish()
    }

    @Test("a response to a request with Authorization is never stored under the override unless opted in")
    func authorizationNotStored() async throws {
        for includingAuthorized in [false, true] {
            let (fixture, disk) = try await LiveFixture.startOnDisk() {
                $0.diskCachePolicy = .all
                $0.httpCacheOptions.storagePolicy = .keepSuccessfulResponses(for: Self.week, includingAuthorized: includingAuthorized)
            }
            // Headers that HTTP's rules would store for a private cache: only the override decides.
            fixture.server.setRoute("/auth.jpg", RouteScript.image(ImageSpec(format: .jpeg, width: 30, height: 20, seed: 4),
                                                                   headers: ["Cache-Control": "no-cache"]))
            var urlRequest = URLRequest(url: fixture.server.url("/auth.jpg"))
            urlRequest.setValue("Bearer token-1", forHTTPHeaderField: "Authorization")
            for thumbnail in [nil, ThumbnailOptions(maxPixelSize: 10)] {
                _ = try await fixture.pipeline.response(for: ImageRequest(source: .urlRequest(urlRequest), thumbnail: thumbnail))
            }
            try await waitFor { fixture.pipeline.backgroundWorkCount == 0 }
            if includingAuthorized {
                #expect(disk.count == 2, "the original and the thumbnail")
                #expect(try await fixture.pipeline.response(for: ImageRequest(source: .urlRequest(urlRequest))).cacheType == .disk)
                var other = urlRequest
                other.setValue("Bearer token-2", forHTTPHeaderField: "Authorization")
                #expect(try await fixture.pipeline.response(for: ImageRequest(source: .urlRequest(other))).cacheType == .none)
            } else {
                #expect(disk.count == 0)
            }
            try await fixture.finish()
        }
    }

    @Test("maxAge removes an entry once the injected clock passes it, and at open")
    func maxAgeEvicts() async throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = Locked(Date(timeIntervalSince1970: 1_800_000_000))
        let now: @Sendable () -> Date = { clock.withLock { $0 } }
        var settings = DiskCache.Configuration(directory: folder)
        settings.maxAge = 3600
        settings.now = now
        let disk = try DiskCache(configuration: settings)
        let fixture = try await LiveFixture.start(.asyncHTTPClient) {
            $0.diskCache = disk
            $0.memoryCache = nil
            $0.httpCacheOptions.storagePolicy = .keepSuccessfulResponses(for: Self.week)
        }
        fixture.server.setRoute("/aged.jpg", RouteScript.image(ImageSpec(format: .jpeg, width: 30, height: 20, seed: 5)))
        let url = fixture.server.url("/aged.jpg")
        _ = try await fixture.pipeline.image(for: url)
        clock.withLock { $0 += 3000 }
        // A read is a use: the age counts from here.
        #expect(try await fixture.pipeline.response(for: ImageRequest(url: url)).cacheType == .disk)
        clock.withLock { $0 += 3000 }
        disk.trim()
        #expect(disk.count == 1, "used 3,000 s ago: younger than maxAge")
        clock.withLock { $0 += 601 }
        disk.trim()
        #expect(disk.count == 0)
        #expect(try await fixture.pipeline.response(for: ImageRequest(url: url)).cacheType == .none)
        #expect(fixture.server.requestCount(for: "/aged.jpg") == 2)
        try await fixture.finish()
    }
}
