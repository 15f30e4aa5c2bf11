import Foundation
import Testing
@testable import ShashinCore

@Suite("Answering a request from the cache (RFC 9111 §4)")
struct SuitabilityTests {
    typealias F = HTTPCachingFixture
    typealias S = CachePolicyEvaluator.Suitability
    let evaluator = CachePolicyEvaluator()

    struct Case: CustomTestStringConvertible, Sendable {
        let section: String
        let name: String
        let response: [(String, String)]
        var storedRequest: [(String, String)] = []
        var request: [(String, String)] = []
        /// Seconds after the response was received (no delay, Date = t0).
        let now: TimeInterval
        let expected: CachePolicyEvaluator.Suitability
        var testDescription: String { "\(section): \(name)" }
    }

    static let maxAge100 = [("Cache-Control", "max-age=100"), ("Date", F.at(0))]

    static let cases: [Case] = [
        Case(section: "§4.2", name: "fresh response served", response: maxAge100, now: 50, expected: .fresh),
        Case(section: "§4.2", name: "stale response needs validation", response: maxAge100, now: 150, expected: .needsValidation),
        Case(section: "§5.2.2.4", name: "response no-cache needs validation even when fresh",
             response: [("Cache-Control", "max-age=100, no-cache")], now: 1, expected: .needsValidation),
        Case(section: "§5.2.2.4", name: "response no-cache with field names treated as no-cache",
             response: [("Cache-Control", "max-age=100, no-cache=\"Set-Cookie\"")], now: 1, expected: .needsValidation),
        Case(section: "§5.2.1.4", name: "request no-cache needs validation",
             response: maxAge100, request: [("Cache-Control", "no-cache")], now: 1, expected: .needsValidation),
        Case(section: "§5.4", name: "Pragma: no-cache without Cache-Control",
             response: maxAge100, request: [("Pragma", "no-cache")], now: 1, expected: .needsValidation),
        Case(section: "§5.4", name: "Pragma ignored when Cache-Control is present",
             response: maxAge100, request: [("Pragma", "no-cache"), ("Cache-Control", "max-stale=0")], now: 1, expected: .fresh),
        Case(section: "§5.2.1.1", name: "request max-age older than the response's age",
             response: maxAge100, request: [("Cache-Control", "max-age=30")], now: 50, expected: .needsValidation),
        Case(section: "§5.2.1.1", name: "request max-age within the age",
             response: maxAge100, request: [("Cache-Control", "max-age=60")], now: 50, expected: .fresh),
        Case(section: "§5.2.1.1", name: "request max-age=0 forces validation",
             response: maxAge100, request: [("Cache-Control", "max-age=0")], now: 1, expected: .needsValidation),
        Case(section: "§5.2.1.3", name: "min-fresh not met",
             response: maxAge100, request: [("Cache-Control", "min-fresh=60")], now: 50, expected: .needsValidation),
        Case(section: "§5.2.1.3", name: "min-fresh met",
             response: maxAge100, request: [("Cache-Control", "min-fresh=40")], now: 50, expected: .fresh),
        Case(section: "§5.2.1.2", name: "max-stale without value accepts any staleness",
             response: maxAge100, request: [("Cache-Control", "max-stale")], now: 100_000, expected: .staleAcceptable),
        Case(section: "§5.2.1.2", name: "max-stale within its limit",
             response: maxAge100, request: [("Cache-Control", "max-stale=60")], now: 150, expected: .staleAcceptable),
        Case(section: "§5.2.1.2", name: "max-stale beyond its limit",
             response: maxAge100, request: [("Cache-Control", "max-stale=60")], now: 170, expected: .needsValidation),
        Case(section: "§5.2.2.2", name: "must-revalidate forbids serving stale even with max-stale",
             response: [("Cache-Control", "max-age=100, must-revalidate")], request: [("Cache-Control", "max-stale")],
             now: 150, expected: .needsValidation),
        Case(section: "§5.2.2.2", name: "must-revalidate does not affect a fresh response",
             response: [("Cache-Control", "max-age=100, must-revalidate")], now: 50, expected: .fresh),
        Case(section: "§4.1", name: "Vary: matching request header",
             response: maxAge100 + [("Vary", "Accept")], storedRequest: [("Accept", "image/webp")],
             request: [("accept", "image/webp")], now: 1, expected: .fresh),
        Case(section: "§4.1", name: "Vary: whitespace normalised",
             response: maxAge100 + [("Vary", "accept-encoding")], storedRequest: [("Accept-Encoding", "gzip,   br")],
             request: [("Accept-Encoding", " gzip, br ")], now: 1, expected: .fresh),
        Case(section: "§4.1", name: "Vary: mismatching request header",
             response: maxAge100 + [("Vary", "Accept")], storedRequest: [("Accept", "image/webp")],
             request: [("Accept", "image/avif")], now: 1, expected: .varyMismatch),
        Case(section: "§4.1", name: "Vary: absent in both matches",
             response: maxAge100 + [("Vary", "Accept-Language")], now: 1, expected: .fresh),
        Case(section: "§4.1", name: "Vary: present in only one mismatches",
             response: maxAge100 + [("Vary", "Accept-Language")], request: [("Accept-Language", "ja")],
             now: 1, expected: .varyMismatch),
        Case(section: "§4.1", name: "Vary: several names, several lines",
             response: maxAge100 + [("Vary", "Accept"), ("Vary", "Accept-Language, Accept")],
             storedRequest: [("Accept", "a"), ("Accept-Language", "ja")],
             request: [("Accept-Language", "ja"), ("Accept", "a")], now: 1, expected: .fresh),
        Case(section: "§4.1", name: "Vary: * never matches",
             response: maxAge100 + [("Vary", "*")], now: 1, expected: .varyMismatch),
    ]

    @Test(arguments: cases) func decides(_ testCase: Case) {
        let stored = F.stored(testCase.response, requestHeaders: testCase.storedRequest)
        #expect(evaluator.suitability(of: stored, for: HTTPHeaderFields(testCase.request), now: F.t0 + testCase.now)
                == testCase.expected)
    }

    @Test func staleWhileRevalidateWindow() {
        // RFC 5861 §3
        let stored = F.stored([("Cache-Control", "max-age=10, stale-while-revalidate=30")])
        #expect(evaluator.mayServeStaleWhileRevalidating(stored, now: F.t0 + 35))
        #expect(!evaluator.mayServeStaleWhileRevalidating(stored, now: F.t0 + 45))
        let strict = F.stored([("Cache-Control", "max-age=10, stale-while-revalidate=30, must-revalidate")])
        #expect(!evaluator.mayServeStaleWhileRevalidating(strict, now: F.t0 + 15))
    }

    @Test func staleIfErrorWindow() {
        // RFC 5861 §4, RFC 9111 §4.2.4
        let stored = F.stored([("Cache-Control", "max-age=10, stale-if-error=60")])
        #expect(evaluator.mayServeStaleOnError(stored, requestHeaders: HTTPHeaderFields(), now: F.t0 + 60))
        #expect(!evaluator.mayServeStaleOnError(stored, requestHeaders: HTTPHeaderFields(), now: F.t0 + 80))
        let plain = F.stored([("Cache-Control", "max-age=10")])
        #expect(!evaluator.mayServeStaleOnError(plain, requestHeaders: HTTPHeaderFields(), now: F.t0 + 20))
        #expect(evaluator.mayServeStaleOnError(plain, requestHeaders: HTTPHeaderFields([("Cache-Control", "stale-if-error=30")]),
                                               now: F.t0 + 20))
        let strict = F.stored([("Cache-Control", "max-age=10, stale-if-error=60, must-revalidate")])
        #expect(!evaluator.mayServeStaleOnError(strict, requestHeaders: HTTPHeaderFields(), now: F.t0 + 20))
    }

    @Test func storesOnlyTheRequestHeadersNamedByVary() {
        let stored = F.stored(Self.maxAge100 + [("Vary", "Accept")], requestHeaders: [("Accept", "a"), ("Authorization", "secret")])
        #expect(stored.varyingRequestHeaders == ["accept": "a"])
    }
}
