import Foundation
import Testing
@testable import ShashinCore

@Suite("Cache-Control parsing (RFC 9111 §5.2)")
struct CacheControlTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let section: String
        let value: String
        let check: @Sendable (CacheControl) -> Bool
        var testDescription: String { "\(section): \(value)" }
    }

    static let cases: [Case] = [
        Case(section: "§5.2.2.1 max-age", value: "max-age=60") { $0.maxAge == 60 },
        Case(section: "§5.2.2.1 case and whitespace", value: "  MAX-AGE = 60 ,Public") { $0.maxAge == 60 && $0.isPublic },
        Case(section: "§5.2 quoted value", value: "max-age=\"120\"") { $0.maxAge == 120 },
        Case(section: "§4.2.1 duplicate max-age: first wins", value: "max-age=10, max-age=99") { $0.maxAge == 10 },
        Case(section: "§4.2.1 invalid max-age reads as stale", value: "max-age=abc") { $0.maxAge == 0 },
        Case(section: "§4.2.1 negative max-age reads as stale", value: "max-age=-5") { $0.maxAge == 0 },
        Case(section: "§1.2.2 delta-seconds overflow is capped", value: "max-age=99999999999999999999") {
            $0.maxAge == CacheControl.maxDeltaSeconds
        },
        Case(section: "§5.2.2.10 s-maxage parsed separately", value: "s-maxage=30") { $0.sharedMaxAge == 30 && $0.maxAge == nil },
        Case(section: "§5.2.2.4 no-cache", value: "no-cache") { $0.noCache },
        Case(section: "§5.2.2.4 no-cache with field names", value: "no-cache=\"Set-Cookie, X-Foo\", max-age=5") {
            $0.noCache && $0.maxAge == 5
        },
        Case(section: "§5.2.2.5 no-store", value: "no-store") { $0.noStore },
        Case(section: "§5.2.2.2 must-revalidate", value: "must-revalidate") { $0.mustRevalidate },
        Case(section: "§5.2.2.7 private with field names", value: "private=\"X\"") { $0.isPrivate },
        Case(section: "RFC 8246 immutable", value: "max-age=31536000, immutable") { $0.immutable },
        Case(section: "RFC 5861 stale directives", value: "stale-while-revalidate=30, stale-if-error=600") {
            $0.staleWhileRevalidate == 30 && $0.staleIfError == 600
        },
        Case(section: "§5.2.1.2 max-stale without value", value: "max-stale") { $0.maxStale == .unlimited },
        Case(section: "§5.2.1.2 max-stale with value", value: "max-stale=20") { $0.maxStale == .seconds(20) },
        Case(section: "§5.2.1.2 malformed max-stale accepts nothing", value: "max-stale=x") { $0.maxStale == nil },
        Case(section: "§5.2.1.3 min-fresh", value: "min-fresh=15") { $0.minFresh == 15 },
        Case(section: "§5.2.1.7 only-if-cached", value: "only-if-cached") { $0.onlyIfCached },
        Case(section: "§5.2.3 extensions kept", value: "community=\"UCI\", foo") {
            $0.extensions["community"] == .some("UCI") && $0.extensions["foo"] == .some(nil)
        },
        Case(section: "§5.2 comma inside quotes does not split", value: "foo=\"a,max-age=1\", max-age=9") { $0.maxAge == 9 },
        Case(section: "§5.2 empty members ignored", value: ",, ,no-store,,") { $0.noStore },
        Case(section: "§5.2 unterminated quote", value: "max-age=\"12") { $0.maxAge == 12 },
    ]

    @Test(arguments: cases) func parses(_ testCase: Case) {
        #expect(testCase.check(CacheControl(testCase.value)))
    }

    @Test func combinesEveryFieldLine() {
        let headers = HTTPHeaderFields([("Cache-Control", "max-age=5"), ("cache-control", "no-cache")])
        let control = CacheControl(headers: headers)
        #expect(control.maxAge == 5 && control.noCache)
    }
}
