import Foundation
import FuzzProbes
import FuzzSupport

/// The HTTP cache's reading of what servers send: an input is an exchange in the probe's text
/// form (status and times, the stored response's fields, the request's, a 304's), decoded
/// leniently from UTF-8, so invalid bytes become U+FFFD as they would in a header value; or, when
/// it starts with `{`, the JSON metadata of a stored entry, as a damaged cache may hold.
enum HTTPCacheFuzzer {
    static func run(_ data: Data) {
        let problems: [String]
        if data.first == UInt8(ascii: "{") {
            problems = HTTPCacheProbe.checkStoredMetadata(data, requestHeaders: [("Accept", "image/*")], now: HTTPCacheProbe.epoch)
        } else {
            // Serving from a cache costs ten times the rules alone: one input in four.
            let exchange = HTTPCacheProbe.exchange(parsing: String(decoding: data, as: UTF8.self))
            problems = HTTPCacheProbe.check(exchange, serving: data.count % 4 == 0)
        }
        if !problems.isEmpty { fuzzFailure(problems.joined(separator: "; ")) }
    }
}
