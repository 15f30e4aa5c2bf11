import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a request uses stored responses: `URLRequest.CachePolicy`'s choices, with the meaning a
/// browser gives them.
public enum HTTPCachePolicy: String, Sendable, Hashable, CaseIterable {
    /// The rules of HTTP (RFC 9111): a fresh stored response is used, a stale one is revalidated.
    case useProtocolCachePolicy
    /// Offline first: any stored response is used, however stale; the network only on a miss.
    case returnCacheDataElseLoad
    /// Cache only: any stored response is used; a miss fails with `ImagePipelineError.cacheMiss`.
    case returnCacheDataDontLoad
    /// Always loads from the network, unconditionally; the response is still stored.
    case reloadIgnoringCacheData
    /// Always asks the server, conditionally when a stored response has a validator.
    case reloadRevalidatingCacheData

    /// The policy that matches a `URLRequest`'s.
    public init(_ policy: URLRequest.CachePolicy) {
        switch policy {
        case .returnCacheDataElseLoad: self = .returnCacheDataElseLoad
        case .returnCacheDataDontLoad: self = .returnCacheDataDontLoad
        case .reloadIgnoringLocalCacheData, .reloadIgnoringLocalAndRemoteCacheData: self = .reloadIgnoringCacheData
        case .reloadRevalidatingCacheData: self = .reloadRevalidatingCacheData
        default: self = .useProtocolCachePolicy
        }
    }
}
