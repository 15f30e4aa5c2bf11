import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import ShashinCore

/// An `HTTPCache` over a scripted loader, in-memory storage and a hand-moved clock.
struct HTTPCacheFixture {
    let loader: ScriptedHTTPLoader
    let storage = InMemoryDataCache()
    let clock = TestClock()
    let cache: HTTPCache
    let url = URL(string: "https://example.com/a.jpg")!

    /// Answers every request with `status`, `headers` (a `Date` of the clock's now added) and
    /// `body`; a conditional request whose validator matches gets a 304.
    init(status: Int = 200, headers: [String: String], body: Data = Data("v1".utf8),
         options: HTTPCache.Options = HTTPCache.Options()) {
        let clock = self.clock
        loader = ScriptedHTTPLoader { request in
            var headers = headers
            headers["Date"] = HTTPCachingFixture.httpDate(clock.now)
            if let etag = headers["ETag"], request.value(forHTTPHeaderField: "If-None-Match") == etag {
                return .init(status: 304, headers: headers)
            }
            return .init(status: status, headers: headers, body: body)
        }
        cache = HTTPCache(loader: loader, storage: storage, options: options, now: { clock.now })
    }

    func get(_ headers: [String: String] = [:], policy: HTTPCachePolicy? = nil) async throws -> HTTPCachedResponse {
        var request = URLRequest(url: url)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return try await cache.response(for: request, policy: policy)
    }

    var requestCount: Int { loader.requests.count }
}
