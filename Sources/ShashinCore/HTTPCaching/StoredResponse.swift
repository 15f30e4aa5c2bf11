import Foundation

/// What the HTTP cache keeps about a response besides its bytes (RFC 9111 §3): status, header
/// fields, when the request went out and the response came back, and the request header fields
/// named by `Vary` (normalised, §4.1). A value: no lock, no shared state.
package struct StoredResponse: Sendable, Equatable, Codable {
    package var status: Int
    package var headers: HTTPHeaderFields
    /// When the request that produced this response was sent (`request_time`, §4.2.3).
    package var requestTime: Date
    /// When the response was received (`response_time`, §4.2.3).
    package var responseTime: Date
    /// Lowercased name → normalised value, for each field named by `Vary` that the request carried.
    /// A name listed by `Vary` but absent from the request is absent here too.
    var varyingRequestHeaders: [String: String]
    /// A digest of the request's `Authorization`, when it had one: a stored response answers only
    /// requests with the same credentials.
    var credential: String?

    package init(status: Int, headers: HTTPHeaderFields, requestHeaders: HTTPHeaderFields, requestTime: Date, responseTime: Date) {
        self.status = status
        self.headers = headers
        self.requestTime = requestTime
        self.responseTime = responseTime
        var varying: [String: String] = [:]
        for name in Self.varyNames(headers) where name != "*" {
            if let value = Self.normalisedValue(requestHeaders, name) { varying[name] = value }
        }
        varyingRequestHeaders = varying
    }

    var cacheControl: CacheControl { CacheControl(headers: headers) }

    /// The lowercased field names listed by `Vary`; `*` is kept as is.
    package var varyNames: [String] { Self.varyNames(headers) }

    static func varyNames(_ headers: HTTPHeaderFields) -> [String] {
        var seen = Set<String>()
        return headers.values(for: "Vary")
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty && seen.insert($0).inserted }
    }

    /// All field lines of `name` combined, with runs of whitespace collapsed and trimmed around
    /// commas, so that `"gzip,  br"` and `"gzip, br"` compare equal (§4.1).
    /// `Authorization` (and `Proxy-Authorization`) are kept as a digest: a password or Digest
    /// response never reaches the metadata.
    static func normalisedValue(_ headers: HTTPHeaderFields, _ name: String) -> String? {
        let values = headers.values(for: name)
        guard !values.isEmpty else { return nil }
        if name.lowercased().hasSuffix("authorization") {
            return "sha256:" + DigestAlgorithm.sha256.hash(values.joined(separator: ","))
        }
        return values
            .flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ") }
            .joined(separator: ",")
    }
}
