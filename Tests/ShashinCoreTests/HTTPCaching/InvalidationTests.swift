import Foundation
import Testing
@testable import ShashinCore

@Suite("Invalidation by unsafe methods (RFC 9111 §4.4)")
struct InvalidationTests {
    let evaluator = CachePolicyEvaluator()
    let url = URL(string: "https://img.example.com/a/photo.jpg")!

    struct Case: CustomTestStringConvertible, Sendable {
        let method: String
        let status: Int
        let invalidates: Bool
        var testDescription: String { "§4.4: \(method) → \(status) \(invalidates ? "invalidates" : "keeps")" }
    }

    static let cases: [Case] =
        ["POST", "PUT", "DELETE", "PATCH", "post"].flatMap { method in
            [Case(method: method, status: 200, invalidates: true), Case(method: method, status: 204, invalidates: true),
             Case(method: method, status: 303, invalidates: true), Case(method: method, status: 404, invalidates: false),
             Case(method: method, status: 500, invalidates: false)]
        }
        + ["GET", "HEAD", "OPTIONS", "TRACE"].map { Case(method: $0, status: 200, invalidates: false) }

    @Test(arguments: cases) func decidesInvalidation(_ testCase: Case) {
        #expect(evaluator.invalidatesStoredResponses(method: testCase.method, status: testCase.status) == testCase.invalidates)
        let urls = evaluator.urlsToInvalidate(method: testCase.method, url: url, status: testCase.status,
                                              responseHeaders: HTTPHeaderFields())
        #expect(urls == (testCase.invalidates ? [url] : []))
    }

    @Test func invalidatesSameOriginLocationsToo() {
        let headers = HTTPHeaderFields([("Location", "/a/new.jpg"), ("Content-Location", "https://evil.example.org/a/photo.jpg")])
        let urls = evaluator.urlsToInvalidate(method: "PUT", url: url, status: 201, responseHeaders: headers)
        #expect(urls.map(\.absoluteString) == ["https://img.example.com/a/photo.jpg", "https://img.example.com/a/new.jpg"])
    }
}
