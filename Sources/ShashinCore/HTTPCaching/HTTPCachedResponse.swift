import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response from `HTTPCache`: the body, the status and headers, and where it came from.
public struct HTTPCachedResponse: Sendable {
    /// Where a response came from.
    public enum Source: String, Sendable, Hashable, CaseIterable {
        /// Stored, used without contacting the server.
        case cache
        /// Stored, confirmed by the server with 304 Not Modified (headers refreshed).
        case revalidated
        /// Sent by the server just now.
        case network
    }

    /// The body (empty for HEAD, 204 and 304).
    public let data: Data
    /// Status and header fields; a stored response carries an `Age` field (RFC 9111 §5.1).
    public let response: HTTPURLResponse
    /// Where the response came from.
    public let source: Source
    /// A stored response served past its freshness: offline first, cache only, stale on a network
    /// error, or stale while a background refresh runs.
    public let isStale: Bool
    /// Errors the storage reported along the way (a full disk, a read-only folder). The response
    /// is good; it may just not have been stored.
    public let storageErrors: [any Error]

    /// The status code.
    public var statusCode: Int { response.statusCode }
}
