import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What to load and how: a URL (or `URLRequest`), an optional decode-time thumbnail size, the
/// processors to apply in order, a priority and options.
///
/// ```swift
/// let request = ImageRequest(url: url, thumbnail: .init(maxPixelSize: 300), priority: .high)
/// ```
public struct ImageRequest: Sendable, CustomStringConvertible {
    /// The request sent to the network, after the pipeline's `requestModifier`.
    public var urlRequest: URLRequest { didSet { updateCacheKey() } }
    /// Downsample while decoding; `nil` decodes at full size.
    public var thumbnail: ThumbnailOptions? { didSet { updateCacheKey() } }
    /// Processing steps applied in order after decoding. Each step's result is cached in memory
    /// and shared by every request with the same prefix of steps.
    public var processors: [any ImageProcessing] { didSet { updateCacheKey() } }
    /// How soon this request runs relative to others. It can change while the task is queued
    /// through `ImageTask.priority`. Default `.normal`.
    public var priority: Priority
    /// Switches for cache use; default none.
    public var options: Options
    /// How stored responses are used: HTTP's rules (default), offline first, cache only, reload.
    /// The reload policies skip the memory cache too (a pull to refresh really asks the server);
    /// without a disk cache, `returnCacheDataDontLoad` fails on a memory miss. A request made from
    /// a `URLRequest` takes that request's `cachePolicy` unless given one.
    public var cachePolicy: HTTPCachePolicy
    /// Whether this request gets previews while a progressive JPEG downloads; `nil` (default)
    /// follows the pipeline's `isProgressiveDecodingEnabled`. Requests that differ only here share
    /// their work; previews are made when the first of them to start the download wants them.
    public var isProgressiveDecodingEnabled: Bool?
    /// How this request's download is retried; `nil` (default) follows the pipeline's
    /// `retryPolicy`, `.never` turns retries off. Requests that differ only here share their
    /// download, which follows the policy of the first of them to start it.
    public var retryPolicy: RetryPolicy?
    /// Sources tried in order when the one before fails with anything but cancellation (after
    /// its retries): mirrors, a smaller rendition, a bundled or generated image
    /// (`ImageSource.data(id:_:)`). The image keeps the request's `cacheKey` whichever source
    /// made it; `ImageResponse.imageSource` says which did. Default none.
    public var alternativeSources: [ImageSource] = []
    /// The primary source when it is an app's closure (`init(id:data:)`); `nil` for a URL.
    var dataSource: ImageSource.DataSource?

    /// The URL of the image; `nil` only when built from a `URLRequest` without one.
    public var url: URL? { urlRequest.url }

    /// Creates a request for a URL. A `nil` URL fails with `ImagePipelineError.invalidURL`.
    public init(url: URL?, thumbnail: ThumbnailOptions? = nil, processors: [any ImageProcessing] = [],
                priority: Priority = .normal, cachePolicy: HTTPCachePolicy = .useProtocolCachePolicy, options: Options = []) {
        var urlRequest = URLRequest(url: url ?? URL(string: "about:blank")!)
        if url == nil { urlRequest.url = nil }
        self.init(urlRequest: urlRequest, thumbnail: thumbnail, processors: processors, priority: priority,
                  cachePolicy: cachePolicy, options: options)
    }

    /// Creates a request from a `URLRequest`, keeping its headers, method and timeout.
    public init(urlRequest: URLRequest, thumbnail: ThumbnailOptions? = nil, processors: [any ImageProcessing] = [],
                priority: Priority = .normal, cachePolicy: HTTPCachePolicy? = nil, options: Options = []) {
        self.urlRequest = urlRequest
        self.thumbnail = thumbnail
        self.processors = processors
        self.priority = priority
        self.cachePolicy = cachePolicy ?? HTTPCachePolicy(urlRequest.cachePolicy)
        self.options = options
        self.cacheKey = Self.makeCacheKey(urlRequest, thumbnail, processors)
    }

    /// The key of the decoded and processed image in the memory cache. Kept up to date as the
    /// request changes, so a memory lookup does not rebuild it.
    public private(set) var cacheKey: ImageCacheKey

    mutating func updateCacheKey() {
        cacheKey = Self.makeCacheKey(urlRequest, thumbnail, processors, dataID: dataSource?.id)
    }

    /// A data source's request is keyed by `id:` and its identifier, where a URL's has the URL.
    private static func makeCacheKey(_ urlRequest: URLRequest, _ thumbnail: ThumbnailOptions?,
                                     _ processors: [any ImageProcessing], dataID: String? = nil) -> ImageCacheKey {
        ImageCacheKey(url: dataID.map { "id:" + $0 } ?? urlRequest.url?.absoluteString ?? "", thumbnail: thumbnail,
                      processors: processors.map(\.identifier))
    }

    /// Whether a memory-cache hit may answer: not when disabled, nor under a reload policy.
    var readsMemoryCache: Bool {
        !options.contains(.disableMemoryCacheReads)
            && cachePolicy != .reloadIgnoringCacheData && cachePolicy != .reloadRevalidatingCacheData
    }

    /// The URL, thumbnail and processors, for logs.
    public var description: String { cacheKey.description }

    /// How soon work runs. Shared work runs at the highest priority of those waiting for it.
    public enum Priority: Int, Sendable, Comparable, CaseIterable {
        case veryLow, low, normal, high, veryHigh
        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Switches for how a request uses the caches.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Do not look in the memory cache (the image is still stored there).
        public static let disableMemoryCacheReads = Options(rawValue: 1 << 0)
        /// Do not store the result in the memory cache.
        public static let disableMemoryCacheWrites = Options(rawValue: 1 << 1)
        /// Neither read nor write the memory cache.
        public static let disableMemoryCache: Options = [.disableMemoryCacheReads, .disableMemoryCacheWrites]
    }
}
