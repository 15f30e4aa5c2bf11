import Foundation

/// The rules of RFC 9111 for a private cache, as pure functions over an injected clock: whether a
/// response may be stored, its age and freshness, whether a stored response may answer a request,
/// how to revalidate it, how a 304 updates it, and what an unsafe request invalidates.
///
/// Nothing here reads the system clock or touches storage: every time comes in as `now`.
/// A value: no lock, no shared state.
package struct CachePolicyEvaluator: Sendable {
    /// Share of the time since `Last-Modified` used as a heuristic freshness lifetime (§4.2.2).
    package var heuristicFraction: Double = 0.1
    /// Upper bound of a heuristic freshness lifetime, in seconds (default: 24 hours).
    package var heuristicCap: TimeInterval = 86_400

    package init(heuristicFraction: Double = 0.1, heuristicCap: TimeInterval = 86_400) {
        self.heuristicFraction = heuristicFraction
        self.heuristicCap = heuristicCap
    }

    /// Whether a stored response may answer a request, and how (§4).
    package enum Suitability: Sendable, Equatable {
        /// Fresh enough for this request: serve it without contacting the origin.
        case fresh
        /// Stale, but the request's `max-stale` accepts it (§4.2.4): serve it as is.
        case staleAcceptable
        /// Must be validated with the origin first (stale, `no-cache`, or too old for the request).
        case needsValidation
        /// The request's varying header fields differ from the stored ones (or `Vary: *`): unusable.
        case varyMismatch
    }

    /// Status codes heuristically cacheable (RFC 9110 §15.1): cacheable without explicit freshness.
    package static let heuristicallyCacheableStatuses: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    /// Final status codes whose semantics this cache understands well enough to store them
    /// (§3, `must-understand`). 206 and 304 are left out: the cache does not combine partial content.
    package static let understoodStatuses: Set<Int> =
        heuristicallyCacheableStatuses.union([201, 202, 302, 303, 307, 400, 401, 403, 406, 408, 409, 500, 502, 503, 504])

    // MARK: Storing (§3)

    /// Whether a response may be stored (§3): a GET or HEAD, no `no-store` on either side, a final
    /// status the cache understands, and either explicit freshness, `public`/`private`, or a
    /// heuristically cacheable status.
    package func isStorable(method: String, requestHeaders: HTTPHeaderFields, status: Int, responseHeaders: HTTPHeaderFields) -> Bool {
        let method = method.uppercased()
        guard method == "GET" || method == "HEAD" else { return false }
        guard status >= 200, status != 206, status != 304, status < 600 else { return false }
        let request = CacheControl(headers: requestHeaders)
        let response = CacheControl(headers: responseHeaders)
        if request.noStore || response.noStore { return false }
        if response.mustUnderstand, !Self.understoodStatuses.contains(status) { return false }
        // The status codes of RFC 9110 and ones from extensions alike need explicit permission unless
        // heuristically cacheable; s-maxage only grants it to shared caches.
        return response.maxAge != nil
            || responseHeaders.contains("Expires")
            || response.isPublic
            || response.isPrivate
            || Self.heuristicallyCacheableStatuses.contains(status)
    }

    // MARK: Age and freshness (§4.2)

    /// `current_age` (§4.2.3): the corrected initial age (the larger of the apparent age from `Date`
    /// and the `Age` value plus the response delay) plus the time resident in this cache.
    package func currentAge(of stored: StoredResponse, now: Date) -> TimeInterval {
        let dateValue = date(of: stored, now: now)
        let apparentAge = max(0, stored.responseTime.timeIntervalSince(dateValue))
        let responseDelay = max(0, stored.responseTime.timeIntervalSince(stored.requestTime))
        let correctedAgeValue = TimeInterval(ageValue(stored.headers)) + responseDelay
        let correctedInitialAge = max(apparentAge, correctedAgeValue)
        let residentTime = max(0, now.timeIntervalSince(stored.responseTime))
        return correctedInitialAge + residentTime
    }

    /// `freshness_lifetime` (§4.2.1): `max-age` (s-maxage is for shared caches), else `Expires` − `Date`
    /// (an invalid `Expires` means already expired, §5.3), else a heuristic (§4.2.2), else 0.
    package func freshnessLifetime(of stored: StoredResponse, now: Date) -> TimeInterval {
        let control = stored.cacheControl
        if let maxAge = control.maxAge { return TimeInterval(maxAge) }
        if let expiresText = stored.headers.values(for: "Expires").first {
            guard let expires = HTTPDateParser.parse(expiresText, now: now) else { return 0 }
            return max(0, expires.timeIntervalSince(date(of: stored, now: now)))
        }
        return heuristicFreshnessLifetime(of: stored, now: now) ?? 0
    }

    /// A heuristic lifetime (§4.2.2): a fraction of the time since `Last-Modified`, capped; only for
    /// heuristically cacheable statuses or responses marked `public`, and only with no explicit expiry.
    package func heuristicFreshnessLifetime(of stored: StoredResponse, now: Date) -> TimeInterval? {
        let control = stored.cacheControl
        guard control.maxAge == nil, !stored.headers.contains("Expires") else { return nil }
        guard Self.heuristicallyCacheableStatuses.contains(stored.status) || control.isPublic else { return nil }
        guard let text = stored.headers.values(for: "Last-Modified").first,
              let lastModified = HTTPDateParser.parse(text, now: now) else { return nil }
        let sinceModified = date(of: stored, now: now).timeIntervalSince(lastModified)
        guard sinceModified > 0 else { return nil }
        return min(sinceModified * heuristicFraction, heuristicCap)
    }

    /// Whether the stored response is fresh at `now` (§4.2): its lifetime exceeds its age.
    package func isFresh(_ stored: StoredResponse, now: Date) -> Bool {
        freshnessLifetime(of: stored, now: now) > currentAge(of: stored, now: now)
    }

    /// How long past its lifetime the response is at `now`; 0 while fresh.
    package func staleness(of stored: StoredResponse, now: Date) -> TimeInterval {
        max(0, currentAge(of: stored, now: now) - freshnessLifetime(of: stored, now: now))
    }

    // MARK: Answering a request (§4)

    /// Whether `stored` may answer a request with `requestHeaders` at `now`, honouring `Vary`
    /// (§4.1), `no-cache` on either side and `Pragma: no-cache` without Cache-Control (§5.4), the
    /// request's `max-age`, `min-fresh` and `max-stale` (§5.2.1), and `must-revalidate` (§5.2.2.2).
    package func suitability(of stored: StoredResponse, for requestHeaders: HTTPHeaderFields, now: Date) -> Suitability {
        guard varyMatches(stored, requestHeaders: requestHeaders) else { return .varyMismatch }
        let request = CacheControl(headers: requestHeaders)
        if request.noCache || pragmaNoCache(requestHeaders) { return .needsValidation }
        let response = stored.cacheControl
        if response.noCache { return .needsValidation }

        let age = currentAge(of: stored, now: now)
        let lifetime = freshnessLifetime(of: stored, now: now)
        if let maxAge = request.maxAge, age > TimeInterval(maxAge) { return .needsValidation }
        if let minFresh = request.minFresh, lifetime - age < TimeInterval(minFresh) { return .needsValidation }
        if lifetime > age { return .fresh }

        // Stale from here on.
        if response.mustRevalidate { return .needsValidation }
        switch request.maxStale {
        case .unlimited?: return .staleAcceptable
        case .seconds(let seconds)?: return age - lifetime <= TimeInterval(seconds) ? .staleAcceptable : .needsValidation
        case nil: return .needsValidation
        }
    }

    /// Whether a stale response may be served while it is revalidated in the background
    /// (RFC 5861 §3): within its `stale-while-revalidate` window and not forbidden by
    /// `must-revalidate` or `no-cache`.
    package func mayServeStaleWhileRevalidating(_ stored: StoredResponse, now: Date) -> Bool {
        let control = stored.cacheControl
        guard let window = control.staleWhileRevalidate, !control.mustRevalidate, !control.noCache else { return false }
        return staleness(of: stored, now: now) <= TimeInterval(window)
    }

    /// Whether a stale response may be served when the origin cannot be reached or answers 5xx
    /// (RFC 5861 §4, RFC 9111 §4.2.4): within a `stale-if-error` window of the response or request
    /// and not forbidden by `must-revalidate` or `no-cache`.
    package func mayServeStaleOnError(_ stored: StoredResponse, requestHeaders: HTTPHeaderFields, now: Date) -> Bool {
        let control = stored.cacheControl
        guard !control.mustRevalidate, !control.noCache else { return false }
        let window = control.staleIfError ?? CacheControl(headers: requestHeaders).staleIfError
        guard let window else { return false }
        return staleness(of: stored, now: now) <= TimeInterval(window)
    }

    /// Whether the request asks to bypass stored responses with `Pragma: no-cache`, which counts only
    /// when the request has no `Cache-Control` (§5.4).
    package func pragmaNoCache(_ requestHeaders: HTTPHeaderFields) -> Bool {
        guard !requestHeaders.contains("Cache-Control") else { return false }
        return requestHeaders.values(for: "Pragma").contains { value in
            CacheControl.directives(in: value).contains { $0.0 == "no-cache" }
        }
    }

    /// Whether the request's varying fields match those stored (§4.1): `Vary: *` never matches; a
    /// field absent from both matches; values compare after whitespace normalisation.
    package func varyMatches(_ stored: StoredResponse, requestHeaders: HTTPHeaderFields) -> Bool {
        let names = stored.varyNames
        if names.contains("*") { return false }
        return names.allSatisfy { name in
            stored.varyingRequestHeaders[name] == StoredResponse.normalisedValue(requestHeaders, name)
        }
    }

    // MARK: Revalidation (§4.3)

    /// The header fields of a conditional request validating `stored` (§4.3.1): `If-None-Match` from
    /// its `ETag`, `If-Modified-Since` from its `Last-Modified`. Empty when it has no validator.
    package func conditionalHeaders(for stored: StoredResponse) -> HTTPHeaderFields {
        var headers = HTTPHeaderFields()
        if let etag = stored.headers.values(for: "ETag").first?.trimmingCharacters(in: .whitespaces), !etag.isEmpty {
            headers.set(etag, for: "If-None-Match")
        }
        if let lastModified = stored.headers.values(for: "Last-Modified").first?.trimmingCharacters(in: .whitespaces),
           !lastModified.isEmpty {
            headers.set(lastModified, for: "If-Modified-Since")
        }
        return headers
    }

    /// Header fields a 304 (or a HEAD) never updates in the stored response (§3.2): framing fields the
    /// stored bytes depend on, and hop-by-hop fields.
    package static let fieldsNotUpdated: Set<String> = [
        "content-length", "content-encoding", "content-range", "transfer-encoding",
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "upgrade",
    ]

    /// `stored` updated by a 304 Not Modified (§4.3.4, §3.2): each field of the 304 replaces the
    /// stored one, except framing and hop-by-hop fields and those named by its `Connection`; the
    /// request and response times become those of the validation, so the age starts again — and a
    /// stored `Age` goes when the 304 carries none: it measured how long the old response had sat
    /// in caches before us, while this answer is first-hand (kept, it would leave an entry
    /// revalidated a moment ago as old as before, stale again at once when that `Age` reached
    /// its lifetime).
    package func updating(_ stored: StoredResponse, withNotModified headers: HTTPHeaderFields,
                  requestTime: Date, responseTime: Date) -> StoredResponse {
        var excluded = Self.fieldsNotUpdated
        for value in headers.values(for: "Connection") {
            for name in value.split(separator: ",") { excluded.insert(name.trimmingCharacters(in: .whitespaces).lowercased()) }
        }
        var updated = stored
        let replaced = headers.lowercasedNames.filter { !excluded.contains($0) && !$0.hasPrefix("proxy-") }
        for name in replaced { updated.headers.remove(name) }
        if !headers.contains("Age") { updated.headers.remove("age") }
        for field in headers.fields where replaced.contains(field.name.lowercased()) {
            updated.headers.add(field.value, for: field.name)
        }
        updated.requestTime = requestTime
        updated.responseTime = responseTime
        return updated
    }

    // MARK: Invalidation (§4.4)

    /// Whether a response to `method` invalidates what is stored for its URL (§4.4): an unsafe method
    /// (anything but GET, HEAD, OPTIONS, TRACE) answered with a non-error status (2xx or 3xx).
    package func invalidatesStoredResponses(method: String, status: Int) -> Bool {
        let safe: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE"]
        return !safe.contains(method.uppercased()) && (200..<400).contains(status)
    }

    /// The URLs to invalidate after such a response (§4.4): the target URL, and the `Location` and
    /// `Content-Location` URLs when they have the same origin. Empty when nothing is invalidated.
    package func urlsToInvalidate(method: String, url: URL, status: Int, responseHeaders: HTTPHeaderFields) -> [URL] {
        guard invalidatesStoredResponses(method: method, status: status) else { return [] }
        var urls = [url]
        for name in ["Location", "Content-Location"] {
            guard let text = responseHeaders.values(for: name).first?.trimmingCharacters(in: .whitespaces),
                  let target = URL(string: text, relativeTo: url)?.absoluteURL,
                  Self.sameOrigin(target, url), !urls.contains(target) else { continue }
            urls.append(target)
        }
        return urls
    }

    // MARK: Helpers

    /// `date_value`: the `Date` field, or the response time when it is missing or invalid
    /// (RFC 9110 §6.6.1 lets a recipient with a clock supply it).
    private func date(of stored: StoredResponse, now: Date) -> Date {
        stored.headers.values(for: "Date").first.flatMap { HTTPDateParser.parse($0, now: now) } ?? stored.responseTime
    }

    /// `age_value` (§5.1): the first member of `Age`; an invalid value is ignored.
    private func ageValue(_ headers: HTTPHeaderFields) -> Int {
        guard let first = headers.values(for: "Age").first?.split(separator: ",", omittingEmptySubsequences: false).first
        else { return 0 }
        return CacheControl.deltaSeconds(first.trimmingCharacters(in: .whitespaces)) ?? 0
    }

    private static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased() && a.port == b.port
    }
}
