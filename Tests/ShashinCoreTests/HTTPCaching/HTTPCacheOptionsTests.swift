import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import ShashinCore

@Suite("HTTPCache options: minimum freshness, stale on error, stale while revalidate")
struct HTTPCacheOptionsTests {
    @Test("minimumFreshness keeps an entry fresh whatever its headers say; request no-cache still revalidates")
    func minimumFreshness() async throws {
        var options = HTTPCache.Options()
        options.minimumFreshness = 600
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=0", "ETag": "\"v1\""], options: options)
        _ = try await fixture.get()
        fixture.clock.advance(300)
        #expect(try await fixture.get().source == .cache)
        #expect(try await fixture.get(["Cache-Control": "no-cache"]).source == .revalidated)
        fixture.clock.advance(601)
        #expect(try await fixture.get().source == .revalidated)
    }

    @Test("servesStaleOnError: a network failure or a 5xx serves the stale entry")
    func staleOnError() async throws {
        var options = HTTPCache.Options()
        options.servesStaleOnError = true
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=10"], options: options)
        _ = try await fixture.get()
        fixture.clock.advance(3600)
        fixture.loader.answer { _ in .init(error: URLError(.notConnectedToInternet)) }
        let offline = try await fixture.get()
        #expect(offline.source == .cache && offline.isStale && offline.data == Data("v1".utf8))
        fixture.loader.answer { _ in .init(status: 503) }
        #expect(try await fixture.get().source == .cache)
    }

    @Test("without the option a network failure is an error, unless stale-if-error allows it (RFC 5861 §4)")
    func staleIfError() async throws {
        let plain = HTTPCacheFixture(headers: ["Cache-Control": "max-age=10"])
        _ = try await plain.get()
        plain.clock.advance(60)
        plain.loader.answer { _ in .init(error: URLError(.notConnectedToInternet)) }
        await #expect(throws: URLError.self) { try await plain.get() }

        let allowed = HTTPCacheFixture(headers: ["Cache-Control": "max-age=10, stale-if-error=100"])
        _ = try await allowed.get()
        allowed.clock.advance(60)
        allowed.loader.answer { _ in .init(error: URLError(.notConnectedToInternet)) }
        #expect(try await allowed.get().isStale)
        allowed.clock.advance(100)
        await #expect(throws: URLError.self) { try await allowed.get() }
    }

    @Test("staleWhileRevalidate: the stale entry now, the refreshed one next time")
    func staleWhileRevalidate() async throws {
        var options = HTTPCache.Options()
        options.staleWhileRevalidate = true
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=10"], options: options)
        _ = try await fixture.get()
        fixture.clock.advance(60)
        let clock = fixture.clock
        fixture.loader.answer { _ in
            .init(headers: ["Cache-Control": "max-age=10", "Date": HTTPCachingFixture.httpDate(clock.now)], body: Data("v2".utf8))
        }
        let stale = try await fixture.get()
        #expect(stale.data == Data("v1".utf8) && stale.isStale && stale.source == .cache)
        await fixture.cache.waitForBackgroundRefreshes()
        #expect(fixture.requestCount == 2)
        let next = try await fixture.get()
        #expect(next.data == Data("v2".utf8) && next.source == .cache && !next.isStale)
    }

    @Test("stale-while-revalidate in the response allows it within its window (RFC 5861 §3)")
    func staleWhileRevalidateDirective() async throws {
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=10, stale-while-revalidate=30", "ETag": "\"v1\""])
        _ = try await fixture.get()
        fixture.clock.advance(20)
        #expect(try await fixture.get().isStale)
        await fixture.cache.waitForBackgroundRefreshes()
        #expect(fixture.requestCount == 2)
        #expect(try await fixture.get().source == .cache)
        fixture.clock.advance(100) // past max-age + the window: a plain revalidation
        #expect(try await fixture.get().source == .revalidated)
    }

    @Test("a shared cache stores neither private responses nor answers to Authorization (§3.5)")
    func sharedCache() async throws {
        var options = HTTPCache.Options()
        options.isShared = true
        let privateResponse = HTTPCacheFixture(headers: ["Cache-Control": "private, max-age=60"], options: options)
        _ = try await privateResponse.get()
        #expect(privateResponse.storage.keys.isEmpty)

        let authorised = HTTPCacheFixture(headers: ["Cache-Control": "max-age=60"], options: options)
        _ = try await authorised.get(["Authorization": "Bearer a"])
        #expect(authorised.storage.keys.isEmpty)

        let publicResponse = HTTPCacheFixture(headers: ["Cache-Control": "public, max-age=60"], options: options)
        _ = try await publicResponse.get(["Authorization": "Bearer a"])
        #expect(publicResponse.storage.keys.count == 1)
    }
}
