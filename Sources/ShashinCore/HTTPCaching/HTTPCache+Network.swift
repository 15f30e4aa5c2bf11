import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPCache {
    /// Asks the server: conditionally when `stored` has a validator (and `conditional`), then
    /// stores, refreshes or keeps what the answer allows. A network failure or a 5xx falls back on
    /// `stored` when stale responses may be served on error.
    func fetch(_ exchange: Exchange, validating stored: StoredEntry?, conditional: Bool,
               errors: [any Error]) async throws -> HTTPCachedResponse {
        let rules = exchange.rules, options = exchange.options
        var errors = errors
        var outgoing = exchange.request
        outgoing.cachePolicy = .reloadIgnoringLocalCacheData
        var validators = HTTPHeaderFields()
        if conditional, let stored {
            validators = rules.conditionalHeaders(for: stored.response)
            for field in validators.fields { outgoing.setValue(field.value, forHTTPHeaderField: field.name) }
        }
        let url = exchange.request.url!
        let requestTime = now()
        let data: Data
        let http: HTTPURLResponse
        do {
            let (body, response) = try await loader.loadResponse(for: outgoing, maxBytes: exchange.maxBytes, progress: exchange.progress)
            guard let response = response as? HTTPURLResponse else {
                throw URLError.failure(.badServerResponse, "Not an HTTP response")
            }
            (data, http) = (body, response)
        } catch {
            if error is CancellationError || Task.isCancelled { throw error }
            // A loader that refuses statuses itself: a 4xx is an answer, not an outage.
            if case ImagePipelineError.httpStatus(let status) = error, status < 500 { throw error }
            if let stored, rules.mayServeStaleOnError(stored.response, requestHeaders: exchange.headers, now: now(), options: options) {
                return serve(stored, url: url, source: .cache, errors: errors, forceStale: true)
            }
            throw error
        }
        let responseTime = now()
        let responseHeaders = HTTPHeaderFields(response: http)

        if http.statusCode == 304, let stored, !validators.fields.isEmpty {
            // §4.3.4: a 304 naming another validator does not describe what we hold: ask again, plainly.
            if let etag = responseHeaders["ETag"], !Self.identifiesStored(etag, stored.response.headers["ETag"]) {
                return try await fetch(exchange, validating: nil, conditional: false, errors: errors)
            }
            // The stored response, with the 304's header fields (those worth keeping, §3.1), is now the fresh one.
            var refreshed = stored
            refreshed.response = rules.updating(stored.response, withNotModified: Self.storedHeaders(responseHeaders),
                                                requestTime: requestTime, responseTime: responseTime)
            let metadata = Self.metadata(of: refreshed.response)
            let key = exchange.key
            if exchange.writesStorage {
                do {
                    // Only onto the entry that was validated: a newer one stored meanwhile keeps its own headers.
                    _ = try await offThePool { [storage] in
                        try storage.updateMetadata(metadata, forKey: key, ifCurrent: stored.metadata)
                    }
                } catch { errors.append(error) }
            }
            return serve(refreshed, url: url, source: .revalidated, errors: errors)
        }
        if (500..<600).contains(http.statusCode), let stored,
           rules.mayServeStaleOnError(stored.response, requestHeaders: exchange.headers, now: now(), options: options) {
            return serve(stored, url: url, source: .cache, errors: errors, forceStale: true)
        }
        let credential = credential(of: exchange.headers, url: url)
        if exchange.writesStorage,
           rules.mayStore(status: http.statusCode, requestHeaders: exchange.headers, responseHeaders: responseHeaders,
                          authenticated: credential != nil, now: now(), options: options) {
            var response = StoredResponse(status: http.statusCode, headers: Self.storedHeaders(responseHeaders),
                                          requestHeaders: exchange.headers, requestTime: requestTime, responseTime: responseTime)
            response.credential = credential
            let metadata = Self.metadata(of: response)
            let key = exchange.key
            do { try await offThePool { [storage] in try storage.store(data, metadata: metadata, forKey: key) } } catch { errors.append(error) }
        }
        // A response that may not be stored leaves an older stored one alone (§3: it is simply not stored).
        return HTTPCachedResponse(data: data, response: http, source: .network, isStale: false, storageErrors: errors)
    }

    /// Stores a complete 200 that did not come through `fetch`: one the pipeline assembled from
    /// kept bytes and a 206 (never the 206 itself), or a 200 answering its ranged request.
    /// `request` is the plain GET, without `Range` or `If-Range`. Stored when any 200 would be.
    /// - Returns: what storage reported.
    func storeComplete(_ data: Data, response: HTTPURLResponse, for request: URLRequest,
                       requestTime: Date, responseTime: Date, control: RequestControl = RequestControl()) async -> [any Error] {
        guard response.statusCode == 200, let url = request.url,
              let exchange = exchange(for: request, maxBytes: data.count, control: control), exchange.writesStorage else { return [] }
        let responseHeaders = HTTPHeaderFields(response: response)
        let credential = credential(of: exchange.headers, url: url)
        guard exchange.rules.mayStore(status: 200, requestHeaders: exchange.headers, responseHeaders: responseHeaders,
                                      authenticated: credential != nil, now: now(), options: exchange.options) else { return [] }
        var stored = StoredResponse(status: 200, headers: Self.storedHeaders(responseHeaders),
                                    requestHeaders: exchange.headers, requestTime: requestTime, responseTime: responseTime)
        stored.credential = credential
        let metadata = Self.metadata(of: stored)
        let key = exchange.key
        do { try await offThePool { [storage] in try storage.store(data, metadata: metadata, forKey: key) } } catch { return [error] }
        return []
    }

    /// Whether a 304's entity tag identifies the stored response for update (§4.3.4): a strong one
    /// must be the stored strong one; a weak one (a 304 with no strong validator) must match the
    /// stored one by the weak comparison (RFC 9110 §8.8.3.2).
    static func identifiesStored(_ etag: String, _ storedETag: String?) -> Bool {
        let etag = etag.trimmingCharacters(in: .whitespaces)
        guard etag.hasPrefix("W/") else { return sameStrongValidator(etag, storedETag) }
        guard let storedETag = storedETag?.trimmingCharacters(in: .whitespaces) else { return false }
        func opaque(_ tag: String) -> Substring { tag.hasPrefix("W/") ? tag.dropFirst(2) : tag[...] }
        return opaque(etag) == opaque(storedETag)
    }

    /// Whether two entity tags are the same strong validator (RFC 9110 §8.8.3.2); a weak or
    /// missing one never matches.
    static func sameStrongValidator(_ a: String?, _ b: String?) -> Bool {
        guard let a = a?.trimmingCharacters(in: .whitespaces), let b = b?.trimmingCharacters(in: .whitespaces),
              !a.hasPrefix("W/"), !b.hasPrefix("W/") else { return false }
        return a == b
    }

    /// Requests the cache does not answer: anything but GET, non-HTTP URLs, conditional or range
    /// requests. An unsafe method's success invalidates what is stored for its URLs (§4.4).
    func passThrough(_ request: URLRequest, method: String, maxBytes: Int,
                     progress: @escaping @Sendable (Int64, Int64) -> Void) async throws -> HTTPCachedResponse {
        let (data, response) = try await loader.loadResponse(for: request, maxBytes: maxBytes, progress: progress)
        guard let http = response as? HTTPURLResponse else {
            let url = response.url ?? request.url!
            let synthetic = HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: [:])!
            return HTTPCachedResponse(data: data, response: synthetic, source: .network, isStale: false, storageErrors: [])
        }
        var errors: [any Error] = []
        if let url = request.url {
            for target in rules.urlsToInvalidate(method: method, url: url, status: http.statusCode,
                                                 responseHeaders: HTTPHeaderFields(response: http)) {
                guard let key = Self.storageKey(for: target) else { continue }
                do { try await offThePool { [storage] in try storage.removeEntry(forKey: key) } } catch { errors.append(error) }
            }
        }
        return HTTPCachedResponse(data: data, response: http, source: .network, isStale: false, storageErrors: errors)
    }

    /// Revalidates `stored` in the background, once per key at a time; the next request gets the result.
    func refreshInBackground(_ exchange: Exchange, validating stored: StoredEntry) {
        let background = exchange.with(progress: { _, _ in })
        // A detached task inherits no task locals: the pipeline's redirect schemes go across by hand.
        let redirectSchemes = RedirectSchemes.allowed
        refreshes.withLock { running in
            guard running[exchange.key] == nil else { return }
            running[exchange.key] = Task.detached(priority: .utility) { [self] in
                // A slot of the owner's download queue, when it has one: refreshes count against its limit.
                let release = await backgroundSlot?()
                _ = try? await RedirectSchemes.$allowed.withValue(redirectSchemes) {
                    try await fetch(background, validating: stored, conditional: true, errors: [])
                }
                release?()
                refreshes.withLock { _ = $0.removeValue(forKey: exchange.key) }
            }
        }
    }
}
