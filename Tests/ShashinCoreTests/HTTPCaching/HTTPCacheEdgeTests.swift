import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import ShashinCore

/// Cases a review found: answers that must not replace or resurrect a stored response, and
/// validations that must not be skipped.
@Suite("HTTPCache edge cases")
struct HTTPCacheEdgeTests {
    @Test("a bare 404 (no freshness, no validator) does not replace a stored 200")
    func bareErrorKeepsStoredImage() async throws {
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=1"])
        _ = try await fixture.get()
        fixture.clock.advance(10)
        fixture.loader.answer { _ in .init(status: 404, body: Data("gone".utf8)) }
        #expect(try await fixture.get().statusCode == 404)
        let offline = try await fixture.get(policy: .returnCacheDataElseLoad)
        #expect(offline.statusCode == 200 && offline.data == Data("v1".utf8))
    }

    @Test("a 404 with explicit freshness is stored (§3)")
    func freshErrorIsStored() async throws {
        let fixture = HTTPCacheFixture(status: 404, headers: ["Cache-Control": "max-age=60"])
        _ = try await fixture.get()
        #expect(try await fixture.get().source == .cache)
    }

    @Test("servesStaleOnError honours must-revalidate and no-cache (§5.2.2.2, §5.2.2.4)")
    func staleOnErrorHonoursMustRevalidate() async throws {
        var options = HTTPCache.Options()
        options.servesStaleOnError = true
        for control in ["max-age=10, must-revalidate", "no-cache"] {
            let fixture = HTTPCacheFixture(headers: ["Cache-Control": control], options: options)
            _ = try await fixture.get()
            fixture.clock.advance(60)
            fixture.loader.answer { _ in .init(error: URLError(.notConnectedToInternet)) }
            await #expect(throws: URLError.self) { try await fixture.get() }
            #expect(try await fixture.get(policy: .returnCacheDataElseLoad).isStale) // offline first still serves it
        }
    }

    @Test("a loader that throws httpStatus(404) is answered by the 404, not by a stale copy")
    func refusingLoaderFourHundreds() async throws {
        var options = HTTPCache.Options()
        options.servesStaleOnError = true
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=10"], options: options)
        _ = try await fixture.get()
        fixture.clock.advance(60)
        fixture.loader.answer { _ in .init(error: ImagePipelineError.httpStatus(404)) }
        await #expect(throws: ImagePipelineError.httpStatus(404)) { try await fixture.get() }
        fixture.loader.answer { _ in .init(error: ImagePipelineError.httpStatus(503)) }
        #expect(try await fixture.get().isStale)
    }

    @Test("a request's max-age=0 is validated first, even within stale-while-revalidate")
    func requestMaxAgeBeatsStaleWhileRevalidate() async throws {
        var options = HTTPCache.Options()
        options.staleWhileRevalidate = true
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=10, stale-while-revalidate=600", "ETag": "\"v1\""],
                                       options: options)
        _ = try await fixture.get()
        fixture.clock.advance(1) // fresh for nine more seconds, but older than the request accepts
        #expect(try await fixture.get(["Cache-Control": "max-age=0"]).source == .revalidated)
        fixture.clock.advance(60)
        #expect(try await fixture.get(["Cache-Control": "min-fresh=5"]).source == .revalidated)
        #expect(fixture.cache.backgroundRefreshCount == 0)
    }

    @Test("a 304 naming another strong validator is not merged: the cache asks again, plainly (§4.3.4)")
    func mismatchedNotModified() async throws {
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=1", "ETag": "\"v1\""])
        _ = try await fixture.get()
        fixture.clock.advance(10)
        fixture.loader.answer { request in
            request.value(forHTTPHeaderField: "If-None-Match") != nil
                ? .init(status: 304, headers: ["ETag": "\"v2\""])
                : .init(headers: ["Cache-Control": "max-age=60", "ETag": "\"v2\""], body: Data("v2".utf8))
        }
        let answer = try await fixture.get()
        #expect(answer.source == .network && answer.data == Data("v2".utf8))
        #expect(fixture.loader.lastRequest?.value(forHTTPHeaderField: "If-None-Match") == nil)
    }

    @Test("a 304 does not write its headers onto an entry stored while it was in flight")
    func notModifiedAfterConcurrentStore() async throws {
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=1", "ETag": "\"v1\""])
        _ = try await fixture.get()
        let key = try #require(fixture.storage.keys.first)
        fixture.clock.advance(10)
        let storage = fixture.storage
        let clock = fixture.clock
        fixture.loader.answer { _ in
            // Another fetch stores v2 while this validation is on the wire.
            let newer = StoredResponse(status: 200, headers: HTTPHeaderFields([("ETag", "\"v2\""), ("Cache-Control", "max-age=60")]),
                                       requestHeaders: HTTPHeaderFields(), requestTime: clock.now, responseTime: clock.now)
            try? storage.store(Data("v2".utf8), metadata: HTTPCache.metadata(of: newer), forKey: key)
            return .init(status: 304, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60"])
        }
        let answer = try await fixture.get()
        #expect(answer.source == .revalidated && answer.data == Data("v1".utf8))
        let stored = try #require(try storage.entry(forKey: key))
        #expect(stored.data == Data("v2".utf8))
        #expect(HTTPCache.storedResponse(from: stored.metadata!)?.headers["ETag"] == "\"v2\"")
    }

    @Test("a 304 refreshes the stored headers without reading the stored entry again")
    func notModifiedReadsStorageOnce() async throws {
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=1", "ETag": "\"v1\""])
        _ = try await fixture.get()
        fixture.clock.advance(10)
        let readsBefore = fixture.storage.entryReads
        #expect(try await fixture.get().source == .revalidated)
        #expect(fixture.storage.entryReads == readsBefore + 1) // the lookup, and nothing more
        #expect(try await fixture.get().source == .cache) // the refreshed headers were stored
        #expect(fixture.requestCount == 2)
    }

    @Test("a 304 with the stored weak ETag refreshes the entry, not a second, unconditional download (§4.3.4)")
    func notModifiedWithWeakValidator() async throws {
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=1", "ETag": "W/\"v1\""])
        _ = try await fixture.get()
        fixture.clock.advance(10)
        let answer = try await fixture.get()
        #expect(answer.source == .revalidated && answer.data == Data("v1".utf8))
        #expect(fixture.requestCount == 2)
        #expect(fixture.loader.lastRequest?.value(forHTTPHeaderField: "If-None-Match") == "W/\"v1\"")
    }

    @Test("a weak ETag on a 304 that is not the stored one is not merged either")
    func notModifiedWithOtherWeakValidator() async throws {
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=1", "ETag": "W/\"v1\""])
        _ = try await fixture.get()
        fixture.clock.advance(10)
        fixture.loader.answer { request in
            request.value(forHTTPHeaderField: "If-None-Match") != nil
                ? .init(status: 304, headers: ["ETag": "W/\"v2\""])
                : .init(headers: ["Cache-Control": "max-age=60", "ETag": "W/\"v2\""], body: Data("v2".utf8))
        }
        let answer = try await fixture.get()
        #expect(answer.source == .network && answer.data == Data("v2".utf8))
    }

    @Test("a 304's Set-Cookie and proxy fields are not merged into the stored headers (§3.1)")
    func notModifiedDoesNotStoreCookies() async throws {
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=1", "ETag": "\"v1\""])
        _ = try await fixture.get()
        let key = try #require(fixture.storage.keys.first)
        fixture.clock.advance(10)
        fixture.loader.answer { _ in
            .init(status: 304, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60", "Set-Cookie": "session=secret",
                                         "Proxy-Authenticate": "Basic"])
        }
        #expect(try await fixture.get().source == .revalidated)
        let metadata = try #require(try fixture.storage.entry(forKey: key)?.metadata)
        let stored = try #require(HTTPCache.storedResponse(from: metadata))
        #expect(stored.headers["Cache-Control"] == "max-age=60")
        #expect(!stored.headers.contains("Set-Cookie") && !stored.headers.contains("Proxy-Authenticate"))
        let later = try await fixture.get()
        #expect(later.source == .cache && later.response.value(forHTTPHeaderField: "Set-Cookie") == nil)
    }
}
