import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Resuming (RFC 9110 §14): a download that ended early leaves its first bytes behind, and the
/// next one asks for the rest with `Range` and `If-Range`. The bytes of two representations are
/// never joined: the server's `If-Range` check, then ours of `Content-Range`, the total length
/// and the validator, each fall back on the whole body.
extension FetchDataJob {
    /// The request a plan sends, when kept bytes may continue it: a GET with no validators,
    /// ranges or credentials of its own, for which the HTTP cache holds no stored response (one
    /// that is stored is revalidated instead).
    nonisolated static func resumableRequest(in plan: HTTPCache.Plan) -> URLRequest? {
        let request: URLRequest
        switch plan {
        case .answered:
            return nil
        case .network(let exchange, let stored, _, _):
            guard stored == nil else { return nil }
            request = exchange.request
        case .passThrough(let passed, _):
            request = passed
        }
        guard (request.httpMethod ?? "GET").uppercased() == "GET" else { return nil }
        guard let fields = request.allHTTPHeaderFields, !fields.isEmpty else { return request }
        let headers = HTTPHeaderFields(fields)
        guard !HTTPCache.isConditional(headers), !headers.contains("Authorization") else { return nil }
        return request
    }

    /// Continues kept bytes when there are some and the server agrees, else downloads the whole
    /// body; keeps what arrives when this download ends early in its turn.
    nonisolated func downloadResuming(_ plan: HTTPCache.Plan, request: URLRequest, key: String, storage: PartialBodyStorage,
                          progress: @escaping @Sendable (Int64, Int64) -> Void) async throws -> FetchedData {
        let prefix = await storage.value(forKey: key)
        try Task.checkCancellation()
        let interrupted = InterruptedBody()
        do {
            let fetched = try await InterruptedBody.$current.withValue(interrupted) { () async throws -> FetchedData in
                if let prefix {
                    if let resumed = try await resume(request, from: prefix, progress: progress) { return resumed }
                    // What the server has now is not what the kept bytes began.
                    await storage.removeValue(forKey: key)
                }
                return try await downloadWhole(plan, progress: progress)
            }
            if prefix != nil { await storage.removeValue(forKey: key) }
            return fetched
        } catch {
            if let (response, data) = interrupted.body {
                if let kept = ResumableData(interrupted: response, received: data, continuing: prefix) {
                    await storage.store(kept, forKey: key)
                } else {
                    await storage.removeValue(forKey: key)
                }
            }
            throw error
        }
    }

    /// Asks for the bytes after `prefix`. The whole body when the answer continues it (a 206
    /// whose range, total and validator fit) or replaces it (a 200); `nil` for any other answer
    /// (416 among them), after which the caller loads the whole image.
    private nonisolated func resume(_ request: URLRequest, from prefix: ResumableData,
                        progress: @escaping @Sendable (Int64, Int64) -> Void) async throws -> FetchedData? {
        var ranged = request
        ranged.cachePolicy = .reloadIgnoringLocalCacheData
        ranged.setValue("bytes=\(prefix.data.count)-", forHTTPHeaderField: "Range")
        ranged.setValue(prefix.validator, forHTTPHeaderField: "If-Range")
        let offset = Int64(prefix.data.count), total = Int64(prefix.totalLength)
        let cache = graph.httpCache
        let requestTime = cache?.now() ?? Date()
        // No progressive previews from this answer: its body may begin anywhere (the rest after
        // the kept bytes, or a whole new body), and a preview feed reads a JPEG from its start. A
        // whole download after a refused resume still feeds them.
        let (body, response) = try await BodyObserver.$sink.withValue(nil) {
            try await graph.dataLoader.loadResponse(for: ranged, maxBytes: graph.configuration.maxResponseBytes) {
                received, expected in
                // The rest of the body counts on from the kept bytes; a whole new body from zero.
                if expected > 0, expected + offset == total {
                    progress(received + offset, total)
                } else {
                    progress(received, expected)
                }
            }
        }
        try Task.checkCancellation()
        guard let http = response as? HTTPURLResponse else { return nil }
        let responseTime = cache?.now() ?? Date()
        switch http.statusCode {
        case 200:
            let errors = await cache?.storeComplete(body, response: http, for: request,
                                                    requestTime: requestTime, responseTime: responseTime,
                                                    control: sourceControl) ?? []
            return try checked(FetchedData(data: body, urlResponse: http, cacheType: .none, timings: ImageTimings(),
                                           storageErrors: errors))
        case 206:
            let headers = HTTPHeaderFields(response: http)
            guard let range = ContentRange(headers["Content-Range"]), range.first == prefix.data.count,
                  range.last == prefix.totalLength - 1, range.completeLength == prefix.totalLength,
                  body.count == range.last - range.first + 1, prefix.identifies(headers),
                  let assembled = Self.completeResponse(from: http, length: prefix.totalLength)
            else { return nil }
            let whole = prefix.data + body
            let errors = await cache?.storeComplete(whole, response: assembled, for: request,
                                                    requestTime: requestTime, responseTime: responseTime,
                                                    control: sourceControl) ?? []
            return try checked(FetchedData(data: whole, urlResponse: assembled, cacheType: .none, timings: ImageTimings(),
                                           storageErrors: errors, resumedFromByte: prefix.data.count))
        default:
            return nil
        }
    }

    /// The 200 the whole body would have come with: the 206's fields (RFC 9110 §15.3.7 has it
    /// send those a 200 would), without `Content-Range`, with the whole length.
    nonisolated static func completeResponse(from partial: HTTPURLResponse, length: Int) -> HTTPURLResponse? {
        guard let url = partial.url else { return nil }
        var fields: [String: String] = [:]
        for (name, value) in partial.allHeaderFields {
            guard let name = name as? String, let value = value as? String else { continue }
            let lowercased = name.lowercased()
            if lowercased == "content-range" || lowercased == "content-length" { continue }
            fields[name] = value
        }
        fields["Content-Length"] = String(length)
        return HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: fields)
    }
}
