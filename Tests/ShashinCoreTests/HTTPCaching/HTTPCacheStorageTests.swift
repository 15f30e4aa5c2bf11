import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import ShashinCore

@Suite("HTTPCache and its storage")
struct HTTPCacheStorageTests {
    @Test("a storage that cannot write: the response still arrives, with the error beside it")
    func failingWrites() async throws {
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=60"])
        fixture.storage.failsWrites = true
        let answer = try await fixture.get()
        #expect(answer.data == Data("v1".utf8) && answer.source == .network)
        #expect(answer.storageErrors.count == 1)
        #expect(try await fixture.get().source == .network)
    }

    @Test("a storage that cannot read: a miss, reported, and the network answers")
    func failingReads() async throws {
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=60"])
        _ = try await fixture.get()
        fixture.storage.failsReads = true
        let answer = try await fixture.get()
        #expect(answer.source == .network && answer.storageErrors.count == 1)
    }

    @Test("unreadable metadata is a miss, and the entry is dropped")
    func damagedMetadata() async throws {
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=60"])
        _ = try await fixture.get()
        let key = try #require(fixture.storage.keys.first)
        try fixture.storage.store(Data("v1".utf8), metadata: Data("{not json".utf8), forKey: key)
        #expect(try await fixture.get().source == .network)
        #expect(try await fixture.get().source == .cache)
    }

    @Test("stored times far off give an Age of 2^31 s, not a crash (RFC 9111 §1.2.2)")
    func ageOverflow() async throws {
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=60"])
        _ = try await fixture.get()
        let key = try #require(fixture.storage.keys.first)
        // Valid JSON whose response time is 1e300 s before 1970: the age overflowed Int.
        let metadata = #"{"status":200,"headers":{"fields":[]},"requestTime":-1e300,"responseTime":-1e300,"varyingRequestHeaders":{}}"#
        try fixture.storage.store(Data("v1".utf8), metadata: Data(metadata.utf8), forKey: key)
        let answer = try await fixture.get(policy: .returnCacheDataDontLoad)
        #expect(answer.source == .cache && answer.isStale)
        #expect(answer.response.value(forHTTPHeaderField: "Age") == "2147483648")
    }

    @Test("a stored response answers only the same credentials")
    func credentials() async throws {
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=60"])
        _ = try await fixture.get(["Authorization": "Bearer alice"])
        #expect(try await fixture.get(["Authorization": "Bearer alice"]).source == .cache)
        #expect(try await fixture.get(["Authorization": "Bearer bob"]).source == .network)
        #expect(try await fixture.get().source == .network)
    }

    @Test("a successful POST invalidates the URL and a same-origin Location (§4.4)")
    func invalidation() async throws {
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=60"])
        _ = try await fixture.get()
        _ = try await fixture.cache.response(for: URLRequest(url: URL(string: "/other", relativeTo: fixture.url)!.absoluteURL))
        _ = try await fixture.cache.response(for: URLRequest(url: URL(string: "https://elsewhere.example/other")!))
        #expect(fixture.storage.keys.count == 3)
        var post = URLRequest(url: fixture.url)
        post.httpMethod = "POST"
        fixture.loader.answer { _ in .init(status: 201, headers: ["Location": "/other"]) }
        #expect(try await fixture.cache.response(for: post).source == .network)
        #expect(fixture.storage.keys == ["https://elsewhere.example/other"]) // another origin is left alone
    }

    @Test("a failed POST invalidates nothing (§4.4)")
    func failedPost() async throws {
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=60"])
        _ = try await fixture.get()
        var delete = URLRequest(url: fixture.url)
        delete.httpMethod = "DELETE"
        fixture.loader.answer { _ in .init(status: 500) }
        _ = try await fixture.cache.response(for: delete)
        #expect(fixture.storage.keys.count == 1)
    }

    @Test("Set-Cookie and hop-by-hop fields are not kept (§3.1); a fragment does not make another entry")
    func storedHeaders() async throws {
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=60", "Set-Cookie": "session=1", "X-Kept": "yes",
                                                 "Connection": "keep-alive, X-Hop", "X-Hop": "1", "Keep-Alive": "timeout=5"])
        _ = try await fixture.get()
        var request = URLRequest(url: URL(string: fixture.url.absoluteString + "#frag")!)
        request.httpMethod = "GET"
        let stored = try await fixture.cache.response(for: request)
        #expect(stored.source == .cache)
        #expect(stored.response.value(forHTTPHeaderField: "Set-Cookie") == nil)
        #expect(stored.response.value(forHTTPHeaderField: "X-Kept") == "yes")
        for name in ["Connection", "X-Hop", "Keep-Alive"] { #expect(stored.response.value(forHTTPHeaderField: name) == nil) }
    }

    @Test("a body larger than maxBytes is not served from storage")
    func maxBytes() async throws {
        let fixture = HTTPCacheFixture(headers: ["Cache-Control": "max-age=60"], body: Data(count: 100))
        _ = try await fixture.get()
        let small = try await fixture.cache.response(for: URLRequest(url: fixture.url), maxBytes: 10)
        #expect(small.source == .network)
    }
}
