import Foundation
import Testing
@testable import ShashinCore

@Suite("Age and freshness (RFC 9111 §4.2)")
struct FreshnessTests {
    typealias F = HTTPCachingFixture
    let evaluator = CachePolicyEvaluator()

    struct Case: CustomTestStringConvertible, Sendable {
        let section: String
        let name: String
        var status = 200
        let headers: [(String, String)]
        var delay: TimeInterval = 0
        /// Seconds after the request was sent.
        let now: TimeInterval
        let age: TimeInterval
        let lifetime: TimeInterval
        var testDescription: String { "\(section): \(name)" }
        var fresh: Bool { lifetime > age }
    }

    static let cases: [Case] = [
        Case(section: "§4.2.1", name: "max-age, fresh while younger",
             headers: [("Cache-Control", "max-age=100"), ("Date", F.at(0))], now: 99, age: 99, lifetime: 100),
        Case(section: "§4.2.1", name: "max-age, stale at its lifetime",
             headers: [("Cache-Control", "max-age=100"), ("Date", F.at(0))], now: 100, age: 100, lifetime: 100),
        Case(section: "§4.2.1", name: "max-age wins over Expires",
             headers: [("Cache-Control", "max-age=10"), ("Expires", F.at(1_000)), ("Date", F.at(0))], now: 5, age: 5, lifetime: 10),
        Case(section: "§4.2.1", name: "s-maxage ignored by a private cache",
             headers: [("Cache-Control", "s-maxage=1000"), ("Date", F.at(0))], now: 5, age: 5, lifetime: 0),
        Case(section: "§4.2.1", name: "Expires minus Date",
             headers: [("Expires", F.at(300)), ("Date", F.at(0))], now: 120, age: 120, lifetime: 300),
        Case(section: "§4.2.1", name: "Expires against a server clock behind ours",
             headers: [("Expires", F.at(-3_500)), ("Date", F.at(-3_600))], now: 50, age: 3_650, lifetime: 100),
        Case(section: "§5.3", name: "Expires: 0 means already expired",
             headers: [("Expires", "0"), ("Date", F.at(0)), ("Last-Modified", F.at(-100_000))], now: 1, age: 1, lifetime: 0),
        Case(section: "§5.3", name: "Expires before Date is zero lifetime",
             headers: [("Expires", F.at(-10)), ("Date", F.at(0))], now: 0, age: 0, lifetime: 0),
        Case(section: "§4.2.3", name: "Age header adds to the age",
             headers: [("Cache-Control", "max-age=100"), ("Date", F.at(0)), ("Age", "60")], now: 30, age: 90, lifetime: 100),
        Case(section: "§5.1", name: "list-valued Age: first member",
             headers: [("Cache-Control", "max-age=100"), ("Age", "20, 90")], now: 0, age: 20, lifetime: 100),
        Case(section: "§5.1", name: "invalid Age ignored",
             headers: [("Cache-Control", "max-age=100"), ("Age", "-7")], now: 10, age: 10, lifetime: 100),
        Case(section: "§4.2.3", name: "apparent age from an old Date",
             headers: [("Cache-Control", "max-age=100"), ("Date", F.at(-40))], now: 0, age: 40, lifetime: 100),
        Case(section: "§4.2.3", name: "Date in the future gives no negative age",
             headers: [("Cache-Control", "max-age=100"), ("Date", F.at(500))], now: 10, age: 10, lifetime: 100),
        Case(section: "§4.2.3", name: "response delay corrects the Age value",
             headers: [("Cache-Control", "max-age=100"), ("Date", F.at(5)), ("Age", "10")], delay: 5, now: 5, age: 15, lifetime: 100),
        Case(section: "§4.2.3", name: "response delay counts even with Age: 0",
             headers: [("Cache-Control", "max-age=10"), ("Date", F.at(8)), ("Age", "0")], delay: 8, now: 10, age: 10, lifetime: 10),
        Case(section: "§4.2.3", name: "missing Date uses the response time",
             headers: [("Expires", F.at(60))], delay: 10, now: 20, age: 20, lifetime: 50),
        Case(section: "§4.2.2", name: "heuristic: 10% of Date − Last-Modified",
             headers: [("Date", F.at(0)), ("Last-Modified", F.at(-10_000))], now: 0, age: 0, lifetime: 1_000),
        Case(section: "§4.2.2", name: "heuristic capped at 24 hours",
             headers: [("Date", F.at(0)), ("Last-Modified", F.at(-100 * 86_400))], now: 0, age: 0, lifetime: 86_400),
        Case(section: "§4.2.2", name: "heuristic for 404",
             status: 404, headers: [("Date", F.at(0)), ("Last-Modified", F.at(-10_000))], now: 0, age: 0, lifetime: 1_000),
        Case(section: "§4.2.2", name: "no heuristic for 302",
             status: 302, headers: [("Date", F.at(0)), ("Last-Modified", F.at(-10_000))], now: 0, age: 0, lifetime: 0),
        Case(section: "§4.2.2", name: "no heuristic for 500",
             status: 500, headers: [("Date", F.at(0)), ("Last-Modified", F.at(-10_000))], now: 0, age: 0, lifetime: 0),
        Case(section: "§4.2.2", name: "heuristic for a non-default status marked public",
             status: 302, headers: [("Cache-Control", "public"), ("Date", F.at(0)), ("Last-Modified", F.at(-10_000))],
             now: 0, age: 0, lifetime: 1_000),
        Case(section: "§4.2.2", name: "Last-Modified after Date gives no heuristic",
             headers: [("Date", F.at(0)), ("Last-Modified", F.at(100))], now: 0, age: 0, lifetime: 0),
        Case(section: "§4.2.1", name: "no freshness information: lifetime 0",
             headers: [("Date", F.at(0))], now: 0, age: 0, lifetime: 0),
    ]

    @Test(arguments: cases) func computesAgeAndLifetime(_ testCase: Case) {
        let stored = F.stored(status: testCase.status, testCase.headers, delay: testCase.delay)
        let now = F.t0 + testCase.now
        #expect(evaluator.currentAge(of: stored, now: now) == testCase.age)
        #expect(evaluator.freshnessLifetime(of: stored, now: now) == testCase.lifetime)
        #expect(evaluator.isFresh(stored, now: now) == testCase.fresh)
    }

    @Test func heuristicCapAndFractionAreConfigurable() {
        let evaluator = CachePolicyEvaluator(heuristicFraction: 0.5, heuristicCap: 60)
        let stored = F.stored([("Date", F.at(0)), ("Last-Modified", F.at(-100))])
        #expect(evaluator.freshnessLifetime(of: stored, now: F.t0) == 50)
        let old = F.stored([("Date", F.at(0)), ("Last-Modified", F.at(-10_000))])
        #expect(evaluator.freshnessLifetime(of: old, now: F.t0) == 60)
    }

    @Test func stalenessGrowsOnlyAfterTheLifetime() {
        let stored = F.stored([("Cache-Control", "max-age=10")])
        #expect(evaluator.staleness(of: stored, now: F.t0 + 5) == 0)
        #expect(evaluator.staleness(of: stored, now: F.t0 + 25) == 15)
    }
}
