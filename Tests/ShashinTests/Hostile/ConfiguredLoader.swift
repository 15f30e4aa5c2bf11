import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Shashin
import ShashinAsyncHTTPClient
import Testing

/// What a network test asks of the loader it is given.
struct LoaderSettings: Sendable {
    var destinationPolicy: DestinationPolicy = .unrestricted
    /// Seconds without a byte before a request fails.
    var idleTimeout: Double = 60
    /// Seconds before any request fails.
    var totalTimeout: Double = 300
}

/// One loader implementation under test, made fresh for each test with its settings.
struct ConfiguredLoader: Sendable, CustomTestStringConvertible {
    let name: String
    /// What this loader cannot do, by the HTTP stack under it, each documented beside the loader;
    /// the tests expect the documented clear error instead.
    var limitations: Set<LoaderLimitation> = []
    let make: @Sendable (LoaderSettings) -> any DataLoading

    var testDescription: String { name }
}

/// Every loader the hostile-server tests run on: add a loader here and every such test runs on it.
enum Loaders {
    static let all: [ConfiguredLoader] = [
        ConfiguredLoader(name: "URLSessionDataLoader", limitations: URLSessionLimitations.onThisPlatform) { settings in
            let configuration = URLSessionDataLoader.defaultConfiguration
            configuration.timeoutIntervalForRequest = settings.idleTimeout
            configuration.timeoutIntervalForResource = settings.totalTimeout
            return URLSessionDataLoader(configuration: configuration, destinationPolicy: settings.destinationPolicy)
        },
        ConfiguredLoader(name: "AsyncHTTPClientDataLoader", limitations: [.headerSectionLimit, .deliversBodiesAsSent]) { settings in
            AsyncHTTPClientDataLoader(idleTimeout: .nanoseconds(Int64(settings.idleTimeout * 1e9)),
                                      totalTimeout: .nanoseconds(Int64(settings.totalTimeout * 1e9)),
                                      destinationPolicy: settings.destinationPolicy)
        },
    ]
}

/// The two ways the pipeline reaches the loader: straight (`loadData`), or through the HTTP
/// cache of a disk cache (`loadResponse`).
enum PipelinePath: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case direct
    case diskCache = "disk cache"

    var testDescription: String { rawValue }
}

/// A behaviour a loader's HTTP stack does not get right, which its documentation names.
enum LoaderLimitation: Sendable, Hashable {
    /// `Name:value` (no space after the colon) fails the response.
    case headerWithoutSpace
    /// Header parsing time grows with the square of the number of lines.
    case quadraticHeaders
    /// The parser refuses a header section beyond a fixed size (SwiftNIO's: 80 KB), at once.
    case headerSectionLimit
    /// Bodies arrive as sent: a `Content-Encoding` not asked for is passed through, so a damaged
    /// compressed body reaches the decoder, which refuses it.
    case deliversBodiesAsSent
}

enum URLSessionLimitations {
    #if canImport(FoundationNetworking)
    /// libcurl and swift-corelibs-foundation (see `URLSessionDataLoader`).
    static let onThisPlatform: Set<LoaderLimitation> = [.headerWithoutSpace, .quadraticHeaders]
    #else
    static let onThisPlatform: Set<LoaderLimitation> = []
    #endif
}
