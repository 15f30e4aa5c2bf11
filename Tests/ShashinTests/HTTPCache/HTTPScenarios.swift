import Foundation
import Shashin

/// The scenarios, each naming the section of RFC 9111 (or RFC 5861) it checks.
enum HTTPScenarios {
    static let day: TimeInterval = 86_400

    static let freshness: [HTTPScenario] = [
        HTTPScenario("§4.2.1", "max-age: fresh until it passes, then asked again",
                     headers: ["Cache-Control": "max-age=60"],
                     [step(.network), step(30, .cache), step(31, .network)]),
        HTTPScenario("§4.2.1", "Expires against Date", headers: { _, _, now in ["Expires": httpDate(now + 60)] },
                     [step(.network), step(30, .cache), step(31, .network)]),
        HTTPScenario("§5.3", "max-age wins over a past Expires",
                     headers: { _, _, now in ["Cache-Control": "max-age=60", "Expires": httpDate(now - 10)] },
                     [step(.network), step(30, .cache)]),
        HTTPScenario("§5.3", "an invalid Expires means already expired", headers: ["Expires": "0"],
                     [step(.network), step(1, .network)]),
        HTTPScenario("§4.2.3", "Age counts toward the age", headers: ["Cache-Control": "max-age=60", "Age": "50"],
                     [step(.network), step(5, .cache), step(6, .network)]),
        HTTPScenario("§4.2.3", "a Date in the past gives an apparent age",
                     headers: { _, _, now in ["Cache-Control": "max-age=60", "Date": httpDate(now - 40)] },
                     [step(.network), step(10, .cache), step(11, .network)]),
        HTTPScenario("§4.2.2", "heuristic freshness: 10% of the time since Last-Modified",
                     headers: { _, start, _ in ["Last-Modified": httpDate(start - 1000)] },
                     [step(.network), step(50, .cache), step(51, .revalidated)]),
        HTTPScenario("§4.2.2", "heuristic freshness is capped at a day",
                     headers: { _, start, _ in ["Last-Modified": httpDate(start - 365 * day)] },
                     [step(.network), step(day - 60, .cache), step(120, .revalidated)]),
    ]

    static let directives: [HTTPScenario] = [
        HTTPScenario("§5.2.2.5", "no-store is never stored", headers: ["Cache-Control": "no-store", "ETag": "\"a\""],
                     [step(.network), step(1, .network)]),
        HTTPScenario("§5.2.2.4", "no-cache is revalidated every time", headers: ["Cache-Control": "no-cache", "ETag": "\"a\""],
                     [step(.network), step(1, .revalidated), step(1, .revalidated)]),
        HTTPScenario("§5.2.2.2", "must-revalidate: stale means ask, whatever max-stale says",
                     headers: ["Cache-Control": "max-age=10, must-revalidate", "ETag": "\"a\""],
                     [step(.network), step(20, .revalidated, headers: ["Cache-Control": "max-stale=100"])]),
        HTTPScenario("§4.2.4", "max-stale accepts a stale response otherwise",
                     headers: ["Cache-Control": "max-age=10", "ETag": "\"a\""],
                     [step(.network), step(20, .cache, headers: ["Cache-Control": "max-stale=100"])]),
        HTTPScenario("§5.2.1.1", "request max-age=0 revalidates", headers: ["Cache-Control": "max-age=60", "ETag": "\"a\""],
                     [step(.network), step(1, .revalidated, headers: ["Cache-Control": "max-age=0"])]),
        HTTPScenario("§5.2.1.3", "request min-fresh wants more life than is left",
                     headers: ["Cache-Control": "max-age=60", "ETag": "\"a\""],
                     [step(.network), step(30, .revalidated, headers: ["Cache-Control": "min-fresh=40"]),
                      step(1, .cache, headers: ["Cache-Control": "min-fresh=40"])]),
        HTTPScenario("§5.2.1.4", "request no-cache revalidates", headers: ["Cache-Control": "max-age=60", "ETag": "\"a\""],
                     [step(.network), step(1, .revalidated, headers: ["Cache-Control": "no-cache"])]),
        HTTPScenario("§5.4", "Pragma: no-cache without Cache-Control revalidates",
                     headers: ["Cache-Control": "max-age=60", "ETag": "\"a\""],
                     [step(.network), step(1, .revalidated, headers: ["Pragma": "no-cache"])]),
        HTTPScenario("§5.2.1.5", "request no-store: the answer is not stored", headers: ["Cache-Control": "max-age=60"],
                     [step(.network, headers: ["Cache-Control": "no-store"]), step(1, .network)]),
        HTTPScenario("§5.2.1.7", "only-if-cached on a miss", headers: ["Cache-Control": "max-age=60"],
                     [step(.cacheMiss, headers: ["Cache-Control": "only-if-cached"]), step(.network),
                      step(1, .cache, headers: ["Cache-Control": "only-if-cached"])]),
        HTTPScenario("§3", "a newer no-store answer leaves the older fresh entry",
                     headers: { ordinal, _, _ in ["Cache-Control": ordinal == 1 ? "max-age=60" : "no-store"] },
                     [step(.network), step(1, .network, headers: ["Cache-Control": "no-cache"]),
                      step(1, .cache, check: { $0.data == HTTPScenario.body(1) })]),
    ]

    static let revalidation: [HTTPScenario] = [
        HTTPScenario("§4.3.1", "ETag: If-None-Match, 304, fresh again", headers: ["Cache-Control": "max-age=10", "ETag": "\"a\""],
                     [step(.network), step(11, .revalidated), step(5, .cache)]),
        HTTPScenario("§4.3.1", "Last-Modified: If-Modified-Since, 304",
                     headers: { _, start, _ in ["Cache-Control": "max-age=10", "Last-Modified": httpDate(start - 5000)] },
                     [step(.network), step(11, .revalidated)]),
        HTTPScenario("§4.3.4", "a 304 updates the stored header fields, never Content-Length",
                     headers: { ordinal, _, _ in ["Cache-Control": "max-age=10", "ETag": "\"a\"", "X-Served": "\(ordinal)"] },
                     [step(.network), step(11, .revalidated, check: { answer in
                         answer.response.value(forHTTPHeaderField: "X-Served") == "2"
                             && answer.response.value(forHTTPHeaderField: "Content-Length") == String(HTTPScenario.body(1).count)
                     }), step(1, .cache, check: { $0.response.value(forHTTPHeaderField: "X-Served") == "2" })]),
        HTTPScenario("§4.3.3", "a 200 to a conditional request replaces the stored response",
                     headers: { ordinal, _, _ in ["Cache-Control": "max-age=10", "ETag": "\"v\(ordinal)\""] },
                     [step(.network), step(11, .replaced, check: { $0.data == HTTPScenario.body(2) }),
                      step(1, .cache, check: { $0.data == HTTPScenario.body(2) })]),
    ]

    static let vary: [HTTPScenario] = [
        HTTPScenario("§4.1", "Vary: the same request header value matches",
                     headers: ["Cache-Control": "max-age=60", "Vary": "Accept-Language"],
                     [step(.network, headers: ["Accept-Language": "en"]), step(1, .cache, headers: ["Accept-Language": "en"])]),
        HTTPScenario("§4.1", "Vary: another value does not match",
                     headers: ["Cache-Control": "max-age=60", "Vary": "Accept-Language"],
                     [step(.network, headers: ["Accept-Language": "en"]), step(1, .network, headers: ["Accept-Language": "fr"])]),
        HTTPScenario("§4.1", "Vary: * never matches", headers: ["Cache-Control": "max-age=60", "Vary": "*"],
                     [step(.network), step(1, .network)]),
    ]

    /// Which statuses are stored with only heuristic freshness (RFC 9110 §15.1): a Last-Modified
    /// 1000 s old gives 100 s.
    static let statuses: [HTTPScenario] = [200, 203, 204, 404, 405, 410, 414, 501, 201, 500, 503].map { status in
        let heuristic: Set<Int> = [200, 203, 204, 404, 405, 410, 414, 501]
        return HTTPScenario("§4.2.2", "status \(status) \(heuristic.contains(status) ? "is" : "is not") heuristically cacheable",
                            status: status, headers: { _, start, _ in ["Last-Modified": httpDate(start - 1000)] },
                            [step(.network), step(1, heuristic.contains(status) ? .cache : .network)])
    } + [
        HTTPScenario("§3", "status 500 with explicit freshness is stored", status: 500, headers: ["Cache-Control": "max-age=60"],
                     [step(.network), step(1, .cache)]),
    ]

    static let all = freshness + directives + revalidation + vary + statuses
}
