/// Drops a seeded fraction of an ``ImageServer``'s connections, as a flaky mobile network does:
/// the request arrives, then the connection closes before the response, or partway through its
/// body.
///
/// Whether a request is dropped depends only on the seed, its path and its
/// ``RecordedRequest/ordinal`` (the nth request for that path since the last
/// ``ImageServer/resetCounters()``), never on the order in which requests for different paths
/// arrive. Two runs that ask for the same paths the same number of times therefore lose the same
/// requests, however their downloads interleave; a run that asks for a path again (a retry, a row
/// scrolled back to) draws that request's own fate.
///
/// ```swift
/// server.connectionDrops = ConnectionDrops(rate: 0.05, seed: 7)   // 5 % of requests, every route
/// ```
public struct ConnectionDrops: Sendable, Hashable {
    /// Where in the exchange a dropped connection closes.
    public enum Point: String, Sendable, Hashable, CaseIterable {
        /// After the request is read (and the route's latency waited), before any byte of the
        /// response. HTTP clients may send the request again on their own when this happens on a
        /// connection they reused (libcurl, behind `URLSession` on Linux, does).
        case beforeResponse = "before-response"
        /// After the headers, with the full `Content-Length`, and a seeded part of the body (from
        /// none of it to all but its last byte). A response without a body is dropped before it
        /// instead.
        case midBody = "mid-body"
    }

    /// Where one dropped request's connection closes.
    public struct Drop: Sendable, Hashable {
        /// Before the response or within its body.
        public var point: Point
        /// With ``Point/midBody``: the part of the body sent before the close, in `0..<1`.
        public var bodyFraction: Double
    }

    /// The fraction of requests dropped, in `0...1`.
    public var rate: Double
    /// Chooses which requests are dropped; the same seed drops the same requests.
    public var seed: UInt64
    /// The points a dropped request closes at, one picked per request by the seed. Default both.
    public var points: [Point]

    /// Drops `rate` (clamped to `0...1`) of the requests, each closing at one of `points` (both
    /// when empty).
    public init(rate: Double, seed: UInt64 = 0, points: [Point] = Point.allCases) {
        self.rate = min(1, max(0, rate.isNaN ? 0 : rate))
        self.seed = seed
        self.points = points.isEmpty ? Point.allCases : points
    }

    /// Whether the `ordinal`th request for `path` is dropped, and where; `nil` when it is served.
    public func drop(path: String, ordinal: Int) -> Drop? {
        var random = SeededRandom(seed: seed ^ Self.fingerprint(path) ^ (UInt64(truncatingIfNeeded: ordinal) &* 0xD6E8_FEB8_6659_FD93))
        guard random.unit() < rate else { return nil }
        return Drop(point: random.pick(points), bodyFraction: random.unit())
    }

    /// FNV-1a of the path's UTF-8 bytes: a hash that is the same in every process (unlike `Hasher`).
    private static func fingerprint(_ path: String) -> UInt64 {
        path.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
    }
}
