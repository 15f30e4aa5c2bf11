import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPCache {
    /// A stored response with its bytes.
    struct StoredEntry: Sendable {
        var response: StoredResponse
        var data: Data
        /// The metadata bytes as read: a 304 updates the entry only while storage still holds them.
        var metadata: Data
    }

    /// The stored response for `key` that may answer a request with `headers`: its `Vary` fields
    /// and credentials match, and its body fits `maxBytes`. Unreadable metadata is a miss (and
    /// the entry is dropped); a storage error is noted and is a miss too.
    /// `url` is the request's: the credential the loader would send goes by its origin.
    func lookUp(_ key: String, url: URL, for headers: HTTPHeaderFields, maxBytes: Int, errors: inout [any Error]) -> StoredEntry? {
        let entry: DataCacheEntry?
        do { entry = try storage.entry(forKey: key) } catch {
            errors.append(error)
            return nil
        }
        guard let entry else { return nil }
        guard let metadata = entry.metadata, let response = Self.storedResponse(from: metadata) else {
            try? storage.removeEntry(forKey: key)
            return nil
        }
        guard entry.data.count <= maxBytes,
              response.credential == credential(of: headers, url: url),
              rules.varyMatches(response, requestHeaders: headers) else { return nil }
        return StoredEntry(response: response, data: entry.data, metadata: metadata)
    }

    /// The stored response as an answer, with its `Age` (§5.1).
    func serve(_ stored: StoredEntry, url: URL, source: HTTPCachedResponse.Source, errors: [any Error],
               forceStale: Bool = false) -> HTTPCachedResponse {
        let now = now()
        // Filtered again on the way out: an entry written by another program, or by a version
        // that kept more, must not replay hop-by-hop fields either.
        var headers = Self.storedHeaders(stored.response.headers)
        // Capped at 2^31 s (RFC 9111 §1.2.2): stored times from damaged metadata, or a clock far
        // off, can make an age past Int.max, which `Int(_:)` would trap on.
        let age = rules.currentAge(of: stored.response, now: now)
        headers.set(String(age >= 0 ? Int(min(age, TimeInterval(CacheControl.maxDeltaSeconds))) : 0), for: "Age")
        var fields: [String: String] = [:]
        for name in headers.lowercasedNames {
            let original = headers.fields.first { $0.name.lowercased() == name }!.name
            fields[original] = headers[name]
        }
        let response = HTTPURLResponse(url: url, statusCode: stored.response.status, httpVersion: "HTTP/1.1", headerFields: fields)!
        let isStale = forceStale || !(rules.isFresh(stored.response, now: now) || rules.isKept(stored.response, now: now, options: options))
        return HTTPCachedResponse(data: stored.data, response: response, source: source, isStale: isStale, storageErrors: errors)
    }

    /// Header fields worth keeping (§3.1): not the hop-by-hop ones (`Connection`, the fields it
    /// names, `Keep-Alive`, `TE`, `Transfer-Encoding`, `Upgrade`, every `Proxy-*` field, such as
    /// `Proxy-Authenticate` and `Proxy-Authentication-Info`), and not cookies, which belong to the
    /// moment they were sent.
    package static func storedHeaders(_ headers: HTTPHeaderFields) -> HTTPHeaderFields {
        var kept = headers
        for value in headers.values(for: "Connection") {
            for name in value.split(separator: ",") { kept.remove(name.trimmingCharacters(in: .whitespaces)) }
        }
        for name in headers.lowercasedNames where notStored.contains(name) || name.hasPrefix("proxy-") {
            kept.remove(name)
        }
        return kept
    }

    /// Fields never stored, lowercased; `Proxy-*` fields are refused by their prefix.
    static let notStored: Set<String> = [
        "connection", "keep-alive", "te", "transfer-encoding", "upgrade", "set-cookie", "set-cookie2",
    ]

    /// Whom a request is made as, for the stored response's key: a digest of its own
    /// `Authorization`, else, when the loader answers challenges, of the credential it sends to
    /// the URL's origin (never the credential itself); `nil` for neither.
    func credential(of headers: HTTPHeaderFields, url: URL?) -> String? {
        Self.credential(of: headers, url: url, loader: loader)
    }

    /// `credential(of:url:)` for a request that `loader` sends.
    static func credential(of headers: HTTPHeaderFields, url: URL?, loader: any DataLoading) -> String? {
        if let own = credential(of: headers) { return own }
        guard let url, let authenticating = loader as? AuthenticatingDataLoader else { return nil }
        return authenticating.session.cacheIdentity(for: url)
    }

    /// A digest of the request's `Authorization` (FNV-1a, 64 bits), or `nil` without one.
    static func credential(of headers: HTTPHeaderFields) -> String? {
        guard let value = headers["Authorization"] else { return nil }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in value.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return String(hash, radix: 16)
    }

    package static func metadata(of response: StoredResponse) -> Data {
        // Encoding a value of plain strings, numbers and dates cannot fail.
        (try? encoder.encode(response)) ?? Data()
    }

    package static func storedResponse(from metadata: Data) -> StoredResponse? {
        try? decoder.decode(StoredResponse.self, from: metadata)
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
}

extension HTTPHeaderFields {
    /// The header fields of a response.
    init(response: HTTPURLResponse) {
        var pairs: [(String, String)] = []
        for (name, value) in response.allHeaderFields {
            guard let name = name as? String else { continue }
            pairs.append((name, "\(value)"))
        }
        self.init(pairs.sorted { $0.0.lowercased() < $1.0.lowercased() })
    }
}
