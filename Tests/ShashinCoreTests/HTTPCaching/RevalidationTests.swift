import Foundation
import Testing
@testable import ShashinCore

@Suite("Revalidation and 304 merging (RFC 9111 §4.3)")
struct RevalidationTests {
    typealias F = HTTPCachingFixture
    let evaluator = CachePolicyEvaluator()

    struct Case: CustomTestStringConvertible, Sendable {
        let section: String
        let name: String
        let stored: [(String, String)]
        let conditional: [(String, String)]
        var testDescription: String { "\(section): \(name)" }
    }

    static let cases: [Case] = [
        Case(section: "§4.3.1", name: "ETag gives If-None-Match",
             stored: [("ETag", "\"v1\"")], conditional: [("If-None-Match", "\"v1\"")]),
        Case(section: "§4.3.1", name: "weak ETag kept as is",
             stored: [("etag", "W/\"v1\"")], conditional: [("If-None-Match", "W/\"v1\"")]),
        Case(section: "§4.3.1", name: "Last-Modified gives If-Modified-Since",
             stored: [("Last-Modified", F.at(-100))], conditional: [("If-Modified-Since", F.at(-100))]),
        Case(section: "§4.3.1", name: "both validators",
             stored: [("ETag", "\"x\""), ("Last-Modified", F.at(-1))],
             conditional: [("If-None-Match", "\"x\""), ("If-Modified-Since", F.at(-1))]),
        Case(section: "§4.3.1", name: "no validator: no conditional headers",
             stored: [("Cache-Control", "max-age=1")], conditional: []),
    ]

    @Test(arguments: cases) func buildsConditionalHeaders(_ testCase: Case) {
        #expect(evaluator.conditionalHeaders(for: F.stored(testCase.stored)) == HTTPHeaderFields(testCase.conditional))
    }

    @Test func notModifiedUpdatesHeadersButKeepsContentLength() {
        // §4.3.4, §3.2
        let stored = F.stored([("Content-Length", "5000"), ("Content-Type", "image/png"), ("ETag", "\"v1\""),
                               ("Cache-Control", "max-age=10"), ("Date", F.at(0)), ("Content-Encoding", "identity")])
        let notModified = HTTPHeaderFields([("Content-Length", "0"), ("Cache-Control", "max-age=600"), ("Date", F.at(100)),
                                       ("X-New", "yes"), ("Connection", "close, X-Hop"), ("X-Hop", "1"),
                                       ("Content-Encoding", "gzip"), ("Transfer-Encoding", "chunked")])
        let updated = evaluator.updating(stored, withNotModified: notModified, requestTime: F.t0 + 99, responseTime: F.t0 + 100)
        #expect(updated.headers["Content-Length"] == "5000")
        #expect(updated.headers["Content-Encoding"] == "identity")
        #expect(updated.headers["Content-Type"] == "image/png")
        #expect(updated.headers["Cache-Control"] == "max-age=600")
        #expect(updated.headers["Date"] == F.at(100))
        #expect(updated.headers["X-New"] == "yes")
        #expect(!updated.headers.contains("X-Hop") && !updated.headers.contains("Connection"))
        #expect(!updated.headers.contains("Transfer-Encoding"))
        #expect(updated.status == 200)
        // The age restarts from the validation: fresh for another 600 s.
        #expect(evaluator.currentAge(of: updated, now: F.t0 + 150) == 51)
        #expect(evaluator.isFresh(updated, now: F.t0 + 650))
        #expect(!evaluator.isFresh(updated, now: F.t0 + 701))
    }

    @Test func notModifiedWithoutAgeRestartsTheAgeOfAResponseThatHadOne() {
        // §4.3.4, §4.2.3: the stored response came through a cache (Age: 590 of max-age=600); a
        // first-hand 304 carries no Age, so the refreshed entry is fresh again, not 590 s old.
        let stored = F.stored([("Cache-Control", "max-age=600"), ("Age", "590"), ("Date", F.at(0)), ("ETag", "\"v1\"")])
        let updated = evaluator.updating(stored, withNotModified: HTTPHeaderFields([("Date", F.at(1000)), ("ETag", "\"v1\"")]),
                                         requestTime: F.t0 + 1000, responseTime: F.t0 + 1000)
        #expect(!updated.headers.contains("Age"))
        #expect(evaluator.currentAge(of: updated, now: F.t0 + 1100) == 100)
        #expect(evaluator.isFresh(updated, now: F.t0 + 1100))
        // A 304 that came through a cache says how old it is, and that Age is kept.
        let relayed = evaluator.updating(stored, withNotModified: HTTPHeaderFields([("Date", F.at(1000)), ("Age", "30")]),
                                         requestTime: F.t0 + 1000, responseTime: F.t0 + 1000)
        #expect(relayed.headers["Age"] == "30")
        #expect(evaluator.currentAge(of: relayed, now: F.t0 + 1000) == 30)
    }

    @Test func notModifiedReplacesEveryLineOfARepeatedField() {
        // §3.2: "replacing field values that are already present"
        let stored = F.stored([("Link", "<a>"), ("Link", "<b>")])
        let updated = evaluator.updating(stored, withNotModified: HTTPHeaderFields([("link", "<c>")]),
                                         requestTime: F.t0, responseTime: F.t0)
        #expect(updated.headers.values(for: "Link") == ["<c>"])
    }
}
