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
    public var options: Options { didSet { if oldValue.contains(.decodeFirstFrameOnly) != options.contains(.decodeFirstFrameOnly) { updateCacheKey() } } }
    /// How stored responses are used: HTTP's rules (default), offline first, cache only, reload.
    /// The reload policies skip the memory cache too (a pull to refresh really asks the server);
    /// without a disk cache, `returnCacheDataDontLoad` fails on a memory miss. A request made from
    /// a `URLRequest` takes that request's `cachePolicy` unless given one.
    public var cachePolicy: HTTPCachePolicy
    /// Whether this request gets previews while a progressive JPEG downloads; `nil` (default)
    /// follows the pipeline's `isProgressiveDecodingEnabled`. Requests that differ only here share
    /// their work; previews are made when the first of them to start the download wants them.
    public var isProgressiveDecodingEnabled: Bool?
    /// The image's name in every cache key, in place of its URL: for URLs that change while the
    /// image does not (signed URLs with a new `Signature` each time). Requests with one `imageID`
    /// share the memory and disk caches, a download in flight and the bytes kept to resume one;
    /// each is still sent to its own URL. The app promises the URLs name one image. Default `nil`:
    /// the pipeline's `imageIDRule`, else the URL, names it. See `ImageIDRule`.
    public var imageID: String? { didSet { updateCacheKey() } }
    /// This request's changes to the HTTP cache's rules (`minimumFreshness`, the storage policy,
    /// ...); default `nil`: the pipeline's `httpCacheOptions`.
    public var httpCacheOptions: HTTPCache.Options?
    /// How this request's download is retried; `nil` (default) follows the pipeline's
    /// `retryPolicy`, `.never` turns retries off. Requests that differ only here share their
    /// download, which follows the policy of the first of them to start it.
    public var retryPolicy: RetryPolicy?
    /// Sources tried in order when the one before fails with anything but cancellation (after
    /// its retries): mirrors, a smaller rendition, a bundled or generated image
    /// (`ImageSource.data(id:_:)`). `ImageResponse.imageSource` says which source made the image.
    /// An alternative's image is not kept under the request's `cacheKey` (in memory or as a
    /// processed result), so it never stands in for the request's own: the next load asks the
    /// request's source again. Default none.
    public var alternativeSources: [ImageSource] = []
    /// What loads instead of the request's sources while the network is constrained: while the
    /// configuration's `networkConstraint` is on, or (Apple platforms) when the system refuses
    /// the download because Low Data Mode is on, for which the request's URL sources are sent
    /// with `allowsConstrainedNetworkAccess` off. The request's own image, when it is in memory or
    /// (with the switch on) in the disk cache, is shown instead: it costs no network. The
    /// low-data image is cached under its own key (its source, its thumbnail, the request's
    /// processors and animation delivery), so it never answers a load at full quality;
    /// `ImageResponse.isLowData` tells it. Image tasks only: `data(for:)` loads the request's
    /// own source. Default `nil`: constraints change nothing.
    public var lowDataSource: LowDataSource?
    /// How an animated image is delivered: every frame, a frame source that decodes while it
    /// plays, or the first frame only (see `AnimationDelivery`). Default `nil`: the pipeline's
    /// `animationDelivery`; `Options.decodeFirstFrameOnly` makes it `.firstFrameOnly`. Requests
    /// that differ here are cached apart.
    public var animationDelivery: AnimationDelivery? { didSet { updateCacheKey() } }
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
        self.cacheKey = Self.makeCacheKey(urlRequest, nil, thumbnail, processors,
                                          options.contains(.decodeFirstFrameOnly) ? .firstFrameOnly : nil)
    }

    /// The delivery this request asks for, `nil` to follow the pipeline's:
    /// `Options.decodeFirstFrameOnly` first, then `animationDelivery`.
    var requestedAnimationDelivery: AnimationDelivery? {
        options.contains(.decodeFirstFrameOnly) ? .firstFrameOnly : animationDelivery
    }

    /// The key of the decoded and processed image in the memory cache. Kept up to date as the
    /// request changes, so a memory lookup does not rebuild it.
    public private(set) var cacheKey: ImageCacheKey

    mutating func updateCacheKey() {
        cacheKey = Self.makeCacheKey(urlRequest, imageID ?? dataSource?.id, thumbnail, processors, requestedAnimationDelivery)
    }

    /// The image's name is its identifier (the request's `imageID`, else a data source's `id`)
    /// as `CacheKeys` writes it, else its URL.
    private static func makeCacheKey(_ urlRequest: URLRequest, _ imageID: String?, _ thumbnail: ThumbnailOptions?,
                                     _ processors: [any ImageProcessing], _ animationDelivery: AnimationDelivery?) -> ImageCacheKey {
        ImageCacheKey(url: imageID.map(CacheKeys.token(forID:)) ?? urlRequest.url?.absoluteString ?? "",
                      thumbnail: thumbnail, processors: processors.map(\.identifier), animationDelivery: animationDelivery)
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
        /// Do not answer from the disk cache, original or processed (the server is asked; what it
        /// sends is still stored).
        public static let disableDiskCacheReads = Options(rawValue: 1 << 2)
        /// Do not store the original or the processed result on disk (what is there stays).
        public static let disableDiskCacheWrites = Options(rawValue: 1 << 3)
        /// Neither read nor write the disk cache.
        public static let disableDiskCache: Options = [.disableDiskCacheReads, .disableDiskCacheWrites]
        /// Keep the image in memory only: the disk cache is neither read nor written.
        public static let memoryCacheOnly: Options = .disableDiskCache
        /// Do not store the processed result (thumbnail, processors) on disk; the original still is.
        public static let disableProcessedDiskCacheWrites = Options(rawValue: 1 << 4)
        /// Decode only the first frame of an animated GIF, WebP or PNG: the image is still
        /// (Kingfisher's `.onlyLoadFirstFrame`, SDWebImage's `.decodeFirstFrameOnly`). The same
        /// as `animationDelivery = .firstFrameOnly`, which it overrides.
        public static let decodeFirstFrameOnly = Options(rawValue: 1 << 5)

        /// The options that change what a download does, so requests that differ in them do not share one.
        static let diskFetchOptions: Options = [.disableDiskCacheReads, .disableDiskCacheWrites]
    }
}
