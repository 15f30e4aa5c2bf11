import Foundation

extension HTTPCache {
    /// What an app may change about the rules, and how.
    public struct Options: Sendable, Hashable {
        /// Stored responses count as fresh for at least this many seconds after they were stored
        /// or revalidated, whatever their headers say (a request's `no-cache` still revalidates).
        /// Default 0: the headers decide.
        public var minimumFreshness: TimeInterval = 0
        /// When the server cannot be reached (or answers 5xx), serve a stored response however
        /// stale, rather than fail — unless it says `must-revalidate` or `no-cache` (for those,
        /// the offline-first policy `returnCacheDataElseLoad` still serves them). Default `false`:
        /// only when `stale-if-error` allows it.
        public var servesStaleOnError = false
        /// Serve a stale stored response at once and refresh it in the background, so the next
        /// request gets the new one. Default `false`: only within a `stale-while-revalidate` window.
        public var staleWhileRevalidate = false
        /// Behave as a shared cache (a server answering many users): responses marked `private`
        /// and responses to requests with `Authorization` (unless `public`, `s-maxage` or
        /// `must-revalidate` allow it) are not stored (RFC 9111 §3, §3.5). Default `false`.
        public var isShared = false
        /// Share of the time since `Last-Modified` used as heuristic freshness; default 10 %.
        public var heuristicFraction: Double = 0.1
        /// Cap of heuristic freshness, in seconds; default one day.
        public var heuristicCap: TimeInterval = 86_400
        /// Which responses are stored and how long they are served without asking: HTTP's rules
        /// (default `.followHeaders`), or every successful response kept for a time whatever its
        /// headers say (`.keepSuccessfulResponses(for:)`).
        public var storagePolicy: StoragePolicy = .followHeaders

        /// The defaults: the rules of RFC 9111 for a private cache.
        public init() {}
    }
}
