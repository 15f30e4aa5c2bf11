import Foundation
import Testing
@testable import ShashinCore

@Suite("Storing responses (RFC 9111 §3)")
struct StorabilityTests {
    let evaluator = CachePolicyEvaluator()

    struct Case: CustomTestStringConvertible, Sendable {
        let section: String
        let name: String
        var method = "GET"
        var requestHeaders: [(String, String)] = []
        let status: Int
        var headers: [(String, String)] = []
        let storable: Bool
        var testDescription: String { "\(section): \(name)" }
    }

    static let defaultCacheable = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]
    static let notByDefault = [201, 202, 302, 303, 307, 400, 401, 403, 500, 502, 503, 504]

    static let cases: [Case] =
        defaultCacheable.map { Case(section: "§3 / RFC 9110 §15.1", name: "\($0) cacheable by default", status: $0, storable: true) }
        + notByDefault.map { Case(section: "§3", name: "\($0) not cacheable by default", status: $0, storable: false) }
        + notByDefault.map {
            Case(section: "§3", name: "\($0) made cacheable by max-age", status: $0,
                 headers: [("Cache-Control", "max-age=60")], storable: true)
        }
        + [
            Case(section: "§3", name: "made cacheable by Expires", status: 302,
                 headers: [("Expires", HTTPCachingFixture.at(60))], storable: true),
            Case(section: "§3", name: "made cacheable by private (private cache)", status: 302,
                 headers: [("Cache-Control", "private")], storable: true),
            Case(section: "§3", name: "made cacheable by public", status: 307,
                 headers: [("Cache-Control", "public")], storable: true),
            Case(section: "§3", name: "s-maxage alone grants nothing to a private cache", status: 302,
                 headers: [("Cache-Control", "s-maxage=60")], storable: false),
            Case(section: "§3", name: "206 not stored (no partial-content support)", status: 206,
                 headers: [("Cache-Control", "max-age=60")], storable: false),
            Case(section: "§3", name: "304 not stored", status: 304, headers: [("Cache-Control", "max-age=60")], storable: false),
            Case(section: "§3", name: "1xx not stored", status: 103, headers: [("Cache-Control", "max-age=60")], storable: false),
            Case(section: "§5.2.2.5", name: "response no-store", status: 200,
                 headers: [("Cache-Control", "max-age=60, no-store")], storable: false),
            Case(section: "§5.2.1.5", name: "request no-store", requestHeaders: [("Cache-Control", "no-store")], status: 200,
                 headers: [("Cache-Control", "max-age=60")], storable: false),
            Case(section: "§5.2.2.4", name: "no-cache may still be stored", status: 200,
                 headers: [("Cache-Control", "no-cache")], storable: true),
            Case(section: "§5.2.2.3", name: "must-understand with an unknown status", status: 299,
                 headers: [("Cache-Control", "max-age=60, must-understand")], storable: false),
            Case(section: "§3", name: "HEAD stored", method: "HEAD", status: 200, storable: true),
            Case(section: "§3", name: "lowercase get stored", method: "get", status: 200, storable: true),
        ]
        + ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"].map {
            Case(section: "§3", name: "\($0) not stored", method: $0, status: 200,
                 headers: [("Cache-Control", "max-age=60")], storable: false)
        }

    @Test(arguments: cases) func decidesStorability(_ testCase: Case) {
        #expect(evaluator.isStorable(method: testCase.method, requestHeaders: HTTPHeaderFields(testCase.requestHeaders),
                                     status: testCase.status, responseHeaders: HTTPHeaderFields(testCase.headers))
                == testCase.storable)
    }
}
