import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A private HTTP cache (RFC 9111) in front of any `DataLoading`, storing into any `DataCaching`.
///
/// It answers any GET — any status, any content type — from storage when the rules allow, with a
/// conditional request when a stored response is stale and has a validator (a 304 refreshes the
/// stored headers and serves the stored bytes), or from the network, storing what may be stored.
/// Unsafe requests (POST, PUT, DELETE, …) pass through and invalidate what is stored for their URL.
/// The policies apps need sit on top: offline first, cache only, reload, a minimum freshness,
/// stale on error, stale while revalidate. Time comes from the injected clock.
///
/// ```swift
/// let cache = HTTPCache(loader: URLSessionDataLoader(), storage: try DiskCache(name: "http"))
/// let answer = try await cache.response(for: URLRequest(url: url))
/// print(answer.statusCode, answer.source)      // 200 network, then 200 cache
/// ```
///
/// It is itself a `DataLoading` (following each request's `cachePolicy`), so it can stand in for a
/// loader anywhere; the image pipeline builds one when it has a disk cache.
public final class HTTPCache: DataLoading, Sendable {
    /// Where responses come from on a miss or revalidation.
    public let loader: any DataLoading
    /// Where responses are kept.
    public let storage: any DataCaching
    /// The app's changes to the rules.
    public let options: Options

    let now: @Sendable () -> Date
    let rules: CachePolicyEvaluator
    /// Background refreshes in flight, by storage key; behind its lock.
    let refreshes = Locked<[String: Task<Void, Never>]>([:])
    /// Waits for a download slot for a background refresh and returns what frees it; `nil`: no limit.
    let backgroundSlot: (@Sendable () async -> @Sendable () -> Void)?

    /// - Parameters:
    ///   - loader: loads what the cache cannot answer.
    ///   - storage: keeps responses (bytes, and status and headers as metadata).
    ///   - options: the app's policies; default the plain RFC 9111 rules.
    ///   - now: the clock every age and freshness is computed against.
    public convenience init(loader: any DataLoading, storage: any DataCaching, options: Options = Options(),
                            now: @escaping @Sendable () -> Date = { Date() }) {
        self.init(loader: loader, storage: storage, options: options, now: now, backgroundSlot: nil)
    }

    /// The pipeline's: background refreshes take a slot of its download queue.
    init(loader: any DataLoading, storage: any DataCaching, options: Options, now: @escaping @Sendable () -> Date,
         backgroundSlot: (@Sendable () async -> @Sendable () -> Void)?) {
        self.backgroundSlot = backgroundSlot
        self.loader = loader
        self.storage = storage
        self.options = options
        self.now = now
        self.rules = CachePolicyEvaluator(heuristicFraction: options.heuristicFraction, heuristicCap: options.heuristicCap)
    }

    /// Answers `request` from storage, by revalidation or from the network, as `policy` and the
    /// rules of HTTP allow.
    /// - Parameters:
    ///   - policy: how to use stored responses; `nil` (default) takes the request's `cachePolicy`.
    ///   - maxBytes: the largest body accepted from the network or storage.
    ///   - progress: bytes received from the network so far, and the expected total.
    /// - Throws: the loader's errors (unless a stale response may be served instead),
    ///   `ImagePipelineError.cacheMiss` when the policy or `only-if-cached` forbids the network and
    ///   nothing usable is stored, `CancellationError`.
    public func response(for request: URLRequest, policy: HTTPCachePolicy? = nil, maxBytes: Int = 50 << 20,
                         progress: @escaping @Sendable (Int64, Int64) -> Void = { _, _ in }) async throws -> HTTPCachedResponse {
        let plan = try await offThePool { try self.plan(for: request, policy: policy, maxBytes: maxBytes) }
        return try await execute(plan, progress: progress)
    }

    /// Answers `request` from storage alone when `policy` and the rules allow it without asking the
    /// server (starting a background refresh when stale while revalidate applies); `nil` when the
    /// server must be asked. Lets a caller keep storage hits out of its network queue.
    /// - Throws: `ImagePipelineError.cacheMiss` when nothing usable is stored and the network is forbidden.
    public func storedResponse(for request: URLRequest, policy: HTTPCachePolicy? = nil,
                               maxBytes: Int = 50 << 20) throws -> HTTPCachedResponse? {
        if case .answered(let answer) = try plan(for: request, policy: policy, maxBytes: maxBytes) { return answer }
        return nil
    }

    /// What answering a request takes, decided from storage alone.
    enum Plan: Sendable {
        /// Answered from storage.
        case answered(HTTPCachedResponse)
        /// The server must be asked (conditionally when `conditional` and `stored` has a validator).
        case network(Exchange, validating: StoredEntry?, conditional: Bool, errors: [any Error])
        /// Not the cache's business (not a GET, not HTTP, the caller's own validators): the loader's.
        case passThrough(URLRequest, maxBytes: Int)
    }

    /// Reads storage once and decides; synchronous, so callers may run it on a queue of their choice.
    /// - Throws: `cacheMiss` when the answer must come from storage and cannot.
    func plan(for request: URLRequest, policy: HTTPCachePolicy?, maxBytes: Int,
              control: RequestControl = RequestControl()) throws -> Plan {
        guard let url = request.url else { throw ImagePipelineError.invalidURL("") }
        guard let exchange = exchange(for: request, maxBytes: maxBytes, control: control) else {
            return .passThrough(request, maxBytes: maxBytes)
        }
        var errors: [any Error] = []
        let stored = exchange.readsStorage
            ? lookUp(exchange.key, url: url, for: exchange.headers, maxBytes: maxBytes, errors: &errors) : nil
        switch decide(exchange, policy: policy ?? HTTPCachePolicy(request.cachePolicy), stored: stored) {
        case .serve(let entry):
            return .answered(serve(entry, url: url, source: .cache, errors: errors))
        case .serveAndRefresh(let entry):
            refreshInBackground(exchange, validating: entry)
            return .answered(serve(entry, url: url, source: .cache, errors: errors))
        case .fetch(let entry, let conditional):
            return .network(exchange, validating: entry, conditional: conditional, errors: errors)
        case .miss:
            throw ImagePipelineError.cacheMiss
        }
    }

    /// Carries out a plan: asks the server when it must.
    func execute(_ plan: Plan, progress: @escaping @Sendable (Int64, Int64) -> Void) async throws -> HTTPCachedResponse {
        switch plan {
        case .answered(let answer):
            return answer
        case .network(let exchange, let stored, let conditional, let errors):
            return try await fetch(exchange.with(progress: progress), validating: stored, conditional: conditional, errors: errors)
        case .passThrough(let request, let maxBytes):
            return try await passThrough(request, method: (request.httpMethod ?? "GET").uppercased(),
                                         maxBytes: maxBytes, progress: progress)
        }
    }

    /// What to do with a request the cache answers (a GET without validators of its own).
    enum Decision {
        case serve(StoredEntry)
        case serveAndRefresh(StoredEntry)
        case fetch(validating: StoredEntry?, conditional: Bool)
        case miss
    }

    func decide(_ exchange: Exchange, policy: HTTPCachePolicy, stored: StoredEntry?) -> Decision {
        switch policy {
        case .returnCacheDataDontLoad:
            return stored.map { .serve($0) } ?? .miss
        case .returnCacheDataElseLoad:
            return stored.map { .serve($0) } ?? .fetch(validating: nil, conditional: false)
        case .reloadIgnoringCacheData:
            return .fetch(validating: stored, conditional: false)
        case .reloadRevalidatingCacheData:
            return .fetch(validating: stored, conditional: true)
        case .useProtocolCachePolicy:
            break
        }
        let rules = exchange.rules, options = exchange.options
        let verdict = stored.map { rules.suitability(of: $0.response, for: exchange.headers, now: now(), options: options) }
        if CacheControl(headers: exchange.headers).onlyIfCached {
            // §5.2.1.7: a stored response the request accepts, or no answer at all.
            guard let stored, verdict == .fresh || verdict == .staleAcceptable else { return .miss }
            return .serve(stored)
        }
        guard let stored, let verdict else { return .fetch(validating: nil, conditional: false) }
        switch verdict {
        case .fresh, .staleAcceptable:
            return .serve(stored)
        case .varyMismatch:
            return .fetch(validating: nil, conditional: false)
        case .needsValidation:
            // Only a response that is stale may be served while refreshing; one the request itself
            // finds too old (max-age, min-fresh) is validated first.
            let requestControl = CacheControl(headers: exchange.headers)
            if requestControl.maxAge == nil, requestControl.minFresh == nil, !rules.isFresh(stored.response, now: now()),
               rules.mayServeWhileRefreshing(stored.response, requestHeaders: exchange.headers, now: now(), options: options) {
                return .serveAndRefresh(stored)
            }
            return .fetch(validating: stored, conditional: true)
        }
    }

    /// The exchange for a request the cache answers; `nil` for those it passes through: anything
    /// but GET, non-HTTP URLs, requests with validators or ranges of their own.
    func exchange(for request: URLRequest, maxBytes: Int, control: RequestControl = RequestControl()) -> Exchange? {
        let headers = HTTPHeaderFields(request.allHTTPHeaderFields ?? [:])
        guard (request.httpMethod ?? "GET").uppercased() == "GET", let url = request.url,
              let urlKey = Self.storageKey(for: url), !Self.isConditional(headers) else { return nil }
        let options = control.options ?? self.options
        let rules = control.options == nil ? self.rules
            : CachePolicyEvaluator(heuristicFraction: options.heuristicFraction, heuristicCap: options.heuristicCap)
        return Exchange(request: request, key: control.key ?? urlKey, headers: headers, maxBytes: maxBytes,
                        options: options, rules: rules, readsStorage: control.readsStorage,
                        writesStorage: control.writesStorage, progress: { _, _ in })
    }

    /// Background refreshes (stale while revalidate) started and not yet ended.
    public var backgroundRefreshCount: Int { refreshes.withLock { $0.count } }

    /// Waits until every background refresh started so far (stale while revalidate) has ended.
    public func waitForBackgroundRefreshes() async {
        while true {
            let running = refreshes.withLock { Array($0.values) }
            if running.isEmpty { return }
            for task in running { await task.value }
        }
    }

    // MARK: DataLoading

    /// The body of a 2xx response to `request` under its `cachePolicy`; other statuses throw
    /// `httpStatus`, as every `DataLoading` does.
    public func loadData(for request: URLRequest, maxBytes: Int,
                         progress: @escaping @Sendable (Int64, Int64) -> Void) async throws -> (Data, URLResponse) {
        let answer = try await response(for: request, maxBytes: maxBytes, progress: progress)
        guard (200..<300).contains(answer.statusCode) else { throw ImagePipelineError.httpStatus(answer.statusCode) }
        return (answer.data, answer.response)
    }

    /// The response to `request` under its `cachePolicy`, whatever its status.
    public func loadResponse(for request: URLRequest, maxBytes: Int,
                             progress: @escaping @Sendable (Int64, Int64) -> Void) async throws -> (Data, URLResponse) {
        let answer = try await response(for: request, maxBytes: maxBytes, progress: progress)
        return (answer.data, answer.response)
    }

    /// The request fields that make a request conditional or ranged.
    private static let conditionalFields = ["If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range"]

    /// Requests that carry their own validators or ranges are the caller's business: passed through.
    static func isConditional(_ headers: HTTPHeaderFields) -> Bool {
        conditionalFields.contains(where: headers.contains)
    }

    /// The storage key of a URL: the URL without its fragment; `nil` for schemes that are not HTTP.
    static func storageKey(for url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        let text = url.absoluteString
        // By UTF-8 byte: "#" is ASCII, and a byte search skips the grapheme breaking a `Character` search does.
        guard let hash = text.utf8.firstIndex(of: UInt8(ascii: "#")) else { return text }
        return String(text[..<hash])
    }
}

extension HTTPCache {
    /// One request on its way through the cache.
    struct Exchange: Sendable {
        let request: URLRequest
        let key: String
        let headers: HTTPHeaderFields
        let maxBytes: Int
        /// The rules' options for this request (the cache's, unless it brought its own), and the
        /// rules they make.
        let options: Options
        let rules: CachePolicyEvaluator
        /// Whether a stored response may answer this request, and whether its response may be stored.
        let readsStorage: Bool
        let writesStorage: Bool
        var progress: @Sendable (Int64, Int64) -> Void

        func with(progress: @escaping @Sendable (Int64, Int64) -> Void) -> Exchange {
            var copy = self
            copy.progress = progress
            return copy
        }
    }
}
