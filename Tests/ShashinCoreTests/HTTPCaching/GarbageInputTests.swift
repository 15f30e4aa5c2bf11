import Foundation
import Testing
@testable import ShashinCore

@Suite("Garbage header values never crash (RFC 9111 §4.2.1, §5)")
struct GarbageInputTests {
    /// A deterministic generator so a failure can be replayed.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let alphabet = Array("max-age=no-cachestoremust-revalidate,\"\\ \t=0123456789-GMT:,;WSunNov*é\u{0}\u{7F}")

    @Test func randomHeaderValuesAreHandled() {
        var random = SplitMix(state: 0x5EED)
        let evaluator = CachePolicyEvaluator()
        let names = ["Cache-Control", "Expires", "Date", "Age", "Last-Modified", "ETag", "Vary", "Pragma"]
        for round in 0..<2_000 {
            var responseHeaders = HTTPHeaderFields()
            var requestHeaders = HTTPHeaderFields()
            for name in names {
                responseHeaders.add(Self.garbage(&random, round: round), for: name)
                requestHeaders.add(Self.garbage(&random, round: round), for: name)
            }
            let stored = StoredResponse(status: Int.random(in: -5...999, using: &random), headers: responseHeaders,
                                        requestHeaders: requestHeaders, requestTime: HTTPCachingFixture.t0,
                                        responseTime: HTTPCachingFixture.t0 + Double.random(in: -1e6...1e6, using: &random))
            let now = HTTPCachingFixture.t0 + Double.random(in: -1e9...1e9, using: &random)
            _ = evaluator.isStorable(method: "GET", requestHeaders: requestHeaders, status: stored.status, responseHeaders: responseHeaders)
            let age = evaluator.currentAge(of: stored, now: now)
            let lifetime = evaluator.freshnessLifetime(of: stored, now: now)
            #expect(age >= 0 && lifetime >= 0 && age.isFinite && lifetime.isFinite)
            _ = evaluator.suitability(of: stored, for: requestHeaders, now: now)
            _ = evaluator.mayServeStaleOnError(stored, requestHeaders: requestHeaders, now: now)
            _ = evaluator.mayServeStaleWhileRevalidating(stored, now: now)
            _ = evaluator.conditionalHeaders(for: stored)
            _ = evaluator.updating(stored, withNotModified: requestHeaders, requestTime: now, responseTime: now)
            for name in names { _ = HTTPDateParser.parse(responseHeaders[name] ?? "", now: now) }
        }
    }

    /// Random bytes decoded leniently half the time, a mix of meaningful characters the other half.
    static func garbage(_ random: inout SplitMix, round: Int) -> String {
        let length = Int.random(in: 0...40, using: &random)
        if round.isMultiple(of: 2) {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            return String(decoding: bytes, as: UTF8.self)
        }
        return String((0..<length).map { _ in alphabet.randomElement(using: &random)! })
    }
}
