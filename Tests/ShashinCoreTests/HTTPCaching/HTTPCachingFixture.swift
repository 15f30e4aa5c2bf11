import Foundation
@testable import ShashinCore

/// Builders shared by the HTTP caching tests: a fixed clock origin and IMF-fixdate formatting.
enum HTTPCachingFixture {
    /// The moment the request is sent in every scenario: 2023-11-14T22:13:20Z.
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    static func httpDate(_ date: Date) -> String {
        HTTPDateParser.format(date)
    }

    /// A date `offset` seconds from `t0`, as an HTTP date.
    static func at(_ offset: TimeInterval) -> String { httpDate(t0 + offset) }

    /// A response requested at `t0`, received `delay` seconds later.
    static func stored(status: Int = 200, _ headers: [(String, String)], requestHeaders: [(String, String)] = [],
                       delay: TimeInterval = 0) -> StoredResponse {
        StoredResponse(status: status, headers: HTTPHeaderFields(headers), requestHeaders: HTTPHeaderFields(requestHeaders),
                       requestTime: t0, responseTime: t0 + delay)
    }
}
