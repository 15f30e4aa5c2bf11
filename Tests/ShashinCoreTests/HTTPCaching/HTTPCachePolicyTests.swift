import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import ShashinCore

@Suite("HTTPCache request policies")
struct HTTPCachePolicyTests {
    @Test("useProtocolCachePolicy: fresh from storage, stale revalidated, 304 serves the stored bytes")
    func protocolPolicy() async throws {
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=60", "ETag": "\"v1\""])
        #expect(try await fixture.get().source == .network)
        fixture.clock.advance(30)
        let fresh = try await fixture.get()
        #expect(fresh.source == .cache && !fresh.isStale && fresh.data == Data("v1".utf8))
        #expect(fresh.response.value(forHTTPHeaderField: "Age") == "30")
        fixture.clock.advance(31)
        let revalidated = try await fixture.get()
        #expect(revalidated.source == .revalidated && revalidated.data == Data("v1".utf8) && revalidated.statusCode == 200)
        #expect(fixture.loader.lastRequest?.value(forHTTPHeaderField: "If-None-Match") == "\"v1\"")
        #expect(fixture.requestCount == 2)
        #expect(try await fixture.get().source == .cache) // the 304 made it fresh again
    }

    @Test("returnCacheDataElseLoad serves a stale entry without asking; loads on a miss")
    func offlineFirst() async throws {
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=1"])
        #expect(try await fixture.get(policy: .returnCacheDataElseLoad).source == .network)
        fixture.clock.advance(3600)
        let stale = try await fixture.get(policy: .returnCacheDataElseLoad)
        #expect(stale.source == .cache && stale.isStale)
        #expect(fixture.requestCount == 1)
    }

    @Test("returnCacheDataDontLoad: a miss is cacheMiss and nothing is sent")
    func cacheOnly() async throws {
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=1"])
        await #expect(throws: ImagePipelineError.cacheMiss) { try await fixture.get(policy: .returnCacheDataDontLoad) }
        #expect(fixture.requestCount == 0)
        _ = try await fixture.get()
        fixture.clock.advance(100)
        #expect(try await fixture.get(policy: .returnCacheDataDontLoad).source == .cache)
        #expect(fixture.requestCount == 1)
    }

    @Test("URLRequest.cachePolicy is followed when no policy is given")
    func requestCachePolicy() async throws {
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=60"])
        var request = URLRequest(url: fixture.url)
        request.cachePolicy = .returnCacheDataDontLoad
        await #expect(throws: ImagePipelineError.cacheMiss) { try await fixture.cache.response(for: request) }
    }

    @Test("reloadIgnoringCacheData asks unconditionally and stores the answer")
    func reload() async throws {
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=60", "ETag": "\"v1\""])
        _ = try await fixture.get()
        #expect(try await fixture.get(policy: .reloadIgnoringCacheData).source == .network)
        #expect(fixture.loader.lastRequest?.value(forHTTPHeaderField: "If-None-Match") == nil)
        #expect(try await fixture.get().source == .cache)
    }

    @Test("reloadRevalidatingCacheData revalidates even a fresh entry")
    func reloadRevalidating() async throws {
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=60", "ETag": "\"v1\""])
        _ = try await fixture.get()
        #expect(try await fixture.get(policy: .reloadRevalidatingCacheData).source == .revalidated)
        #expect(fixture.requestCount == 2)
    }

    @Test("only-if-cached: a fresh entry is served, a stale one or a miss is cacheMiss (§5.2.1.7)")
    func onlyIfCached() async throws {
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=60"])
        await #expect(throws: ImagePipelineError.cacheMiss) { try await fixture.get(["Cache-Control": "only-if-cached"]) }
        _ = try await fixture.get()
        #expect(try await fixture.get(["Cache-Control": "only-if-cached"]).source == .cache)
        fixture.clock.advance(61)
        await #expect(throws: ImagePipelineError.cacheMiss) { try await fixture.get(["Cache-Control": "only-if-cached"]) }
        #expect(fixture.requestCount == 1)
    }

    @Test("HTTPCache as a DataLoading: 2xx bodies, other statuses as httpStatus")
    func asDataLoading() async throws {
        let fixture = HTTPCacheFixture(status: 404, headers: ["Cache-Control": "max-age=60"])
        let loader: any DataLoading = fixture.cache
        await #expect(throws: ImagePipelineError.httpStatus(404)) {
            try await loader.loadData(for: URLRequest(url: fixture.url), maxBytes: 1 << 20) { _, _ in }
        }
        let (_, response) = try await loader.loadResponse(for: URLRequest(url: fixture.url), maxBytes: 1 << 20) { _, _ in }
        #expect((response as? HTTPURLResponse)?.statusCode == 404)
        #expect(fixture.requestCount == 1) // the 404 with max-age was stored and served
    }

    @Test("storedResponse answers only what needs no server: fresh yes, stale or missing nil, cache-only miss throws")
    func storedOnly() async throws {
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=60", "ETag": "\"v1\""])
        let request = URLRequest(url: fixture.url)
        #expect(try fixture.cache.storedResponse(for: request) == nil)
        #expect(throws: ImagePipelineError.cacheMiss) { try fixture.cache.storedResponse(for: request, policy: .returnCacheDataDontLoad) }
        _ = try await fixture.get()
        #expect(try fixture.cache.storedResponse(for: request)?.source == .cache)
        fixture.clock.advance(61)
        #expect(try fixture.cache.storedResponse(for: request) == nil)
        #expect(try fixture.cache.storedResponse(for: request, policy: .returnCacheDataElseLoad)?.isStale == true)
        #expect(fixture.requestCount == 1)
    }
}
