import Foundation

/// The rules bent by an app's `HTTPCache.Options`: what the HTTP cache and the store of
/// processed results both decide by, each with its own clock.
extension CachePolicyEvaluator {
    /// `suitability(of:for:now:)`, where `options.minimumFreshness` makes a response stored less
    /// than that long ago fresh, unless `no-cache` on either side forbids it.
    func suitability(of stored: StoredResponse, for headers: HTTPHeaderFields, now: Date,
                     options: HTTPCache.Options) -> Suitability {
        let verdict = suitability(of: stored, for: headers, now: now)
        if verdict == .needsValidation, isKept(stored, now: now, options: options),
           !CacheControl(headers: headers).noCache, !pragmaNoCache(headers) {
            return .fresh
        }
        guard verdict == .needsValidation, options.minimumFreshness > 0 else { return verdict }
        let requestControl = CacheControl(headers: headers)
        guard !requestControl.noCache, !pragmaNoCache(headers), !stored.cacheControl.noCache else { return verdict }
        let sinceStored = now.timeIntervalSince(stored.responseTime)
        return sinceStored < options.minimumFreshness ? .fresh : verdict
    }

    /// Whether a stale response may be served while it is revalidated: within its
    /// `stale-while-revalidate` window, or always with `options.staleWhileRevalidate` unless the
    /// response must be revalidated; never when the request says `no-cache`.
    func mayServeWhileRefreshing(_ stored: StoredResponse, requestHeaders: HTTPHeaderFields, now: Date,
                                 options: HTTPCache.Options) -> Bool {
        let requestControl = CacheControl(headers: requestHeaders)
        guard !requestControl.noCache, !pragmaNoCache(requestHeaders) else { return false }
        if mayServeStaleWhileRevalidating(stored, now: now) { return true }
        let control = stored.cacheControl
        return options.staleWhileRevalidate && !control.mustRevalidate && !control.noCache
    }

    /// Whether a stale response may be served when the origin fails: within a `stale-if-error`
    /// window, or always with `options.servesStaleOnError` unless the response must be revalidated.
    func mayServeStaleOnError(_ stored: StoredResponse, requestHeaders: HTTPHeaderFields, now: Date,
                              options: HTTPCache.Options) -> Bool {
        let control = stored.cacheControl
        if options.servesStaleOnError, !control.mustRevalidate, !control.noCache { return true }
        return mayServeStaleOnError(stored, requestHeaders: requestHeaders, now: now)
    }

    /// §3 with the app's options: may this response to a GET be stored? A status outside 2xx is
    /// stored only when it can ever be used (a freshness lifetime or a validator): a bare 404 must
    /// not replace a good stored image that an offline policy could still show. A shared cache
    /// (`options.isShared`) keeps nothing `private`, and an authenticated response only when it
    /// says it may. `authenticated`: the request went with credentials, its own or the loader's.
    func mayStore(status: Int, requestHeaders: HTTPHeaderFields, responseHeaders: HTTPHeaderFields, authenticated: Bool = false,
                  now: Date, options: HTTPCache.Options) -> Bool {
        if case .keepSuccessfulResponses = options.storagePolicy {
            let withCredentials = authenticated || requestHeaders.contains("Authorization")
            if options.storagePolicy.keptLifetime(status: status, authenticated: withCredentials) != nil { return true }
            // Under the override, what it does not keep for credentials is not stored at all.
            if withCredentials { return false }
        }
        guard isStorable(method: "GET", requestHeaders: requestHeaders, status: status, responseHeaders: responseHeaders)
        else { return false }
        if !(200..<300).contains(status) {
            let probe = StoredResponse(status: status, headers: responseHeaders, requestHeaders: requestHeaders,
                                       requestTime: now, responseTime: now)
            let hasValidator = !conditionalHeaders(for: probe).fields.isEmpty
            guard hasValidator || freshnessLifetime(of: probe, now: now) > 0 else { return false }
        }
        guard options.isShared else { return true }
        let control = CacheControl(headers: responseHeaders)
        if control.isPrivate { return false }
        if authenticated || requestHeaders.contains("Authorization") {
            return control.isPublic || control.mustRevalidate || control.sharedMaxAge != nil
        }
        return true
    }

    /// Whether `options.storagePolicy` keeps `stored` fresh now: a 2xx response (stored without
    /// credentials, unless the policy includes them) stored or revalidated less than its lifetime ago.
    func isKept(_ stored: StoredResponse, now: Date, options: HTTPCache.Options) -> Bool {
        guard let lifetime = options.storagePolicy.keptLifetime(status: stored.status, authenticated: stored.credential != nil)
        else { return false }
        let age = now.timeIntervalSince(stored.responseTime)
        return age >= 0 && age < lifetime
    }
}
