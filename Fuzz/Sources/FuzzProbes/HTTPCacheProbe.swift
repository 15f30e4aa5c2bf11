import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ShashinCore

/// Runs every path of the HTTP cache that reads what a server sent — `Cache-Control`, the HTTP
/// dates, `Age`, `Vary`, `ETag`, a 304's fields, an entry's stored metadata — over one exchange,
/// and reports the invariants that do not hold. The fuzzer `FuzzHTTPCache` drives it and the
/// regression tests replay what it found. It lives outside the shipped library and reaches the
/// parsers and rules through ShashinCore's `package` declarations.
///
/// Stateless: each call builds its own cache over its own in-memory storage.
package enum HTTPCacheProbe {
    /// One exchange: a stored response, a request asking for it, and a 304 validating it.
    package struct Exchange: Sendable {
        package var status = 200
        package var responseHeaders: [(String, String)] = []
        package var requestHeaders: [(String, String)] = []
        package var notModifiedHeaders: [(String, String)] = []
        package var requestTime = HTTPCacheProbe.epoch
        package var responseTime = HTTPCacheProbe.epoch
        package var now = HTTPCacheProbe.epoch

        package init() {}
    }

    /// What the times of an exchange count from: 2024-01-01T00:00:00Z.
    package static let epoch = Date(timeIntervalSince1970: 1_704_067_200)

    /// Times stay within a century of `epoch`, as a clock's do; stored metadata is not bounded.
    static let maxOffset = 3_155_760_000

    /// Reads the text form of the fuzzer's inputs:
    ///
    /// ```
    /// 200 -5 -3 600                 status, then the request, response and current times in seconds from `epoch`
    /// Cache-Control: max-age=60     the stored response's fields, up to a blank line
    ///
    /// Accept-Encoding: gzip         the request's fields, up to a blank line
    ///
    /// ETag: "v2"                    the 304's fields
    /// ```
    ///
    /// Any text reads as some exchange: a missing or malformed number is 0 (the status 200), and a
    /// line without a colon is a field with an empty value.
    package static func exchange(parsing text: String) -> Exchange {
        var exchange = Exchange()
        // "\r\n" is one Character in Swift: split on it as well as on "\n".
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })[...]
        let numbers = (lines.popFirst() ?? "").split(separator: " ").map { Int($0) }
        func offset(_ index: Int) -> TimeInterval {
            guard index < numbers.count, let value = numbers[index] else { return 0 }
            return TimeInterval(min(max(value, -maxOffset), maxOffset))
        }
        exchange.status = numbers.first.flatMap { $0 } ?? 200
        exchange.requestTime = epoch + offset(1)
        exchange.responseTime = epoch + offset(2)
        exchange.now = epoch + offset(3)

        var sections: [[(String, String)]] = [[]]
        for line in lines {
            if line.isEmpty {
                sections.append([])
                continue
            }
            let colon = line.firstIndex(of: ":") ?? line.endIndex
            let name = String(line[..<colon])
            let value = colon == line.endIndex ? "" : String(line[line.index(after: colon)...])
            sections[sections.count - 1].append((name, value.trimmingCharacters(in: .whitespaces)))
        }
        exchange.responseHeaders = sections[0]
        exchange.requestHeaders = sections.count > 1 ? sections[1] : []
        exchange.notModifiedHeaders = sections.count > 2 ? sections[2...].flatMap { $0 } : []
        return exchange
    }

    /// Checks the rules on `exchange`, then (when `serving`) serves it from a cache holding it
    /// under every policy, the slow part; the broken invariants, or none.
    package static func check(_ exchange: Exchange, serving: Bool = true) -> [String] {
        var problems: [String] = []
        let rules = CachePolicyEvaluator()
        let now = exchange.now
        let responseHeaders = HTTPHeaderFields(exchange.responseHeaders)
        let requestHeaders = HTTPHeaderFields(exchange.requestHeaders)
        let notModified = HTTPHeaderFields(exchange.notModifiedHeaders)

        // The parsers on every value, whichever field it came in.
        for field in responseHeaders.fields + requestHeaders.fields + notModified.fields {
            problems += checkParsers(field.value, now: now)
        }

        _ = rules.isStorable(method: "GET", requestHeaders: requestHeaders, status: exchange.status, responseHeaders: responseHeaders)
        let stored = StoredResponse(status: exchange.status, headers: HTTPCache.storedHeaders(responseHeaders),
                                    requestHeaders: requestHeaders, requestTime: exchange.requestTime,
                                    responseTime: exchange.responseTime)
        problems += checkFreshness(stored, rules: rules, now: now)

        // A response always matches the request it was stored for, unless it varies on `*`.
        let matches = rules.varyMatches(stored, requestHeaders: requestHeaders)
        if matches == stored.varyNames.contains("*") {
            problems.append("Vary \(stored.varyNames) matching the request it was stored for: \(matches)")
        }
        let suitability = rules.suitability(of: stored, for: requestHeaders, now: now)
        if !matches && suitability != .varyMismatch {
            problems.append("suitability \(suitability) although Vary does not match")
        }
        _ = rules.mayServeStaleOnError(stored, requestHeaders: requestHeaders, now: now)
        _ = rules.mayServeStaleWhileRevalidating(stored, now: now)

        let conditional = rules.conditionalHeaders(for: stored)
        let etag = stored.headers.values(for: "ETag").first?.trimmingCharacters(in: .whitespaces) ?? ""
        if conditional.contains("If-None-Match") == etag.isEmpty {
            problems.append("If-None-Match \(conditional["If-None-Match"] ?? "absent") for ETag \(etag)")
        }
        problems += checkNotModified(stored, notModified, rules: rules, now: now)

        if let url = URL(string: "https://images.example/photo.jpg") {
            for target in rules.urlsToInvalidate(method: "POST", url: url, status: exchange.status, responseHeaders: responseHeaders)
            where target.scheme != url.scheme || target.host != url.host || target.port != url.port {
                problems.append("invalidating \(target), of another origin than \(url)")
            }
        }

        let metadata = HTTPCache.metadata(of: stored)
        if HTTPCache.storedResponse(from: metadata) != stored {
            problems.append("stored metadata does not read back as what was written")
        }
        if serving {
            problems += checkStoredMetadata(metadata, requestHeaders: exchange.requestHeaders, now: now)
        }
        return problems
    }

    /// Serves a stored entry whose metadata is `metadata` (as a damaged or foreign cache may hold)
    /// under every policy; the broken invariants, or none.
    package static func checkStoredMetadata(_ metadata: Data, requestHeaders: [(String, String)], now: Date) -> [String] {
        var problems: [String] = []
        let url = URL(string: "https://images.example/photo.jpg")!
        let body = Data("stored body".utf8)
        let readable = HTTPCache.storedResponse(from: metadata)
        for policy in HTTPCachePolicy.allCases {
            let storage = ProbeStorage()
            storage.entries.withLock { $0[url.absoluteString] = DataCacheEntry(data: body, metadata: metadata, storedAt: now) }
            let cache = HTTPCache(loader: UnreachableLoader(), storage: storage, now: { now })
            var request = URLRequest(url: url)
            for (name, value) in requestHeaders { request.addValue(value, forHTTPHeaderField: name) }
            let answer: HTTPCachedResponse?
            do {
                answer = try cache.storedResponse(for: request, policy: policy)
            } catch ImagePipelineError.cacheMiss {
                answer = nil
            } catch {
                problems.append("\(policy): \(error) from storage, not an answer or a cache miss")
                continue
            }
            waitForBackgroundRefreshes(of: cache)
            if readable == nil, storage.containsEntry(forKey: url.absoluteString) {
                problems.append("\(policy): unreadable metadata left in storage")
            }
            guard let answer else { continue }
            if readable == nil { problems.append("\(policy): served an entry whose metadata does not read") }
            if answer.data != body || answer.statusCode != readable?.status {
                problems.append("\(policy): served \(answer.data.count) bytes with status \(answer.statusCode)")
            }
            let age = answer.response.value(forHTTPHeaderField: "Age")
            if age.flatMap({ Int($0) }).map({ $0 < 0 || $0 > CacheControl.maxDeltaSeconds }) ?? true {
                problems.append("\(policy): served with Age \(age ?? "absent")")
            }
        }
        return problems
    }

    // MARK: - Pieces

    /// Blocks until the refreshes a stale-while-revalidate answer started have ended (against the
    /// unreachable network, at once), so that nothing of one check outlives it. The caller is not
    /// on a Swift concurrency thread (the fuzzer's own, or a test's).
    static func waitForBackgroundRefreshes(of cache: HTTPCache) {
        guard cache.backgroundRefreshCount > 0 else { return }
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            await cache.waitForBackgroundRefreshes()
            done.signal()
        }
        done.wait()
    }

    /// `Cache-Control` and HTTP-date readings of any value stay within their ranges.
    static func checkParsers(_ value: String, now: Date) -> [String] {
        var problems: [String] = []
        let control = CacheControl(value)
        let seconds = [control.maxAge, control.sharedMaxAge, control.staleWhileRevalidate, control.staleIfError, control.minFresh]
        if case .seconds(let maxStale)? = control.maxStale, !(0...CacheControl.maxDeltaSeconds).contains(maxStale) {
            problems.append("max-stale \(maxStale) from \(value.debugDescription)")
        }
        for case let delta? in seconds where !(0...CacheControl.maxDeltaSeconds).contains(delta) {
            problems.append("delta-seconds \(delta) from \(value.debugDescription)")
        }
        if let date = HTTPDateParser.parse(value, now: now) {
            // Years of four digits: 0000 through 9999.
            if !(-62_167_219_200.0..<253_402_300_800.0).contains(date.timeIntervalSince1970) {
                problems.append("date \(date.timeIntervalSince1970) from \(value.debugDescription)")
            }
        }
        return problems
    }

    /// Age, lifetime and staleness are finite, not negative, and agree with `isFresh`.
    static func checkFreshness(_ stored: StoredResponse, rules: CachePolicyEvaluator, now: Date) -> [String] {
        let age = rules.currentAge(of: stored, now: now)
        let lifetime = rules.freshnessLifetime(of: stored, now: now)
        let staleness = rules.staleness(of: stored, now: now)
        let fresh = rules.isFresh(stored, now: now)
        var problems: [String] = []
        if !(age.isFinite && age >= 0 && lifetime.isFinite && lifetime >= 0 && staleness.isFinite && staleness >= 0) {
            problems.append("age \(age), lifetime \(lifetime), staleness \(staleness)")
        }
        if fresh != (lifetime > age) || (fresh && staleness != 0) {
            problems.append("fresh \(fresh) with age \(age), lifetime \(lifetime), staleness \(staleness)")
        }
        if let heuristic = rules.heuristicFreshnessLifetime(of: stored, now: now), !(0...rules.heuristicCap).contains(heuristic) {
            problems.append("heuristic lifetime \(heuristic)")
        }
        return problems
    }

    /// A 304 replaces the fields it carries, except framing and hop-by-hop ones, and restarts the
    /// age (a stored `Age` goes unless the 304 brings one).
    static func checkNotModified(_ stored: StoredResponse, _ notModified: HTTPHeaderFields, rules: CachePolicyEvaluator, now: Date) -> [String] {
        let updated = rules.updating(stored, withNotModified: notModified, requestTime: now, responseTime: now)
        var problems: [String] = []
        if updated.requestTime != now || updated.responseTime != now || updated.status != stored.status {
            problems.append("a 304 merged into times \(updated.requestTime), \(updated.responseTime), status \(updated.status)")
        }
        let connectionNames = Set(notModified.values(for: "Connection").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
        for name in notModified.lowercasedNames {
            let kept = CachePolicyEvaluator.fieldsNotUpdated.contains(name) || connectionNames.contains(name)
            let expected = kept ? stored.headers.values(for: name) : notModified.values(for: name)
            if updated.headers.values(for: name) != expected {
                problems.append("after a 304, \(name) is \(updated.headers.values(for: name)), not \(expected)")
            }
        }
        if !notModified.contains("Age"), updated.headers.contains("Age") {
            problems.append("a 304 without Age kept the stored Age \(updated.headers.values(for: "Age"))")
        }
        return problems
    }
}

/// The probe's storage: a dictionary.
private final class ProbeStorage: DataCaching {
    let entries = Locked<[String: DataCacheEntry]>([:])

    func entry(forKey key: String) throws -> DataCacheEntry? { entries.withLock { $0[key] } }
    func containsEntry(forKey key: String) -> Bool { entries.withLock { $0[key] != nil } }
    func store(_ data: Data, metadata: Data?, forKey key: String) throws {
        entries.withLock { $0[key] = DataCacheEntry(data: data, metadata: metadata) }
    }
    func updateMetadata(_ metadata: Data?, forKey key: String) throws {
        entries.withLock { $0[key]?.metadata = metadata }
    }
    func removeEntry(forKey key: String) throws { entries.withLock { $0[key] = nil } }
    func removeAll() throws { entries.withLock { $0.removeAll() } }
}

/// The probe's network: always down, so background refreshes end at once.
private struct UnreachableLoader: DataLoading {
    func loadData(for request: URLRequest, maxBytes: Int,
                  progress: @escaping @Sendable (Int64, Int64) -> Void) async throws -> (Data, URLResponse) {
        throw URLError(.notConnectedToInternet)
    }
}
