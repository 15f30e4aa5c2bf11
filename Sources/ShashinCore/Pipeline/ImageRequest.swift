import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What to load and how: a source (a URL, a `URLRequest`, a local file or an app's closure), an
/// optional decode-time thumbnail size, the processors to apply in order, a priority and options.
///
/// ```swift
/// let request = ImageRequest(url: url, thumbnail: .init(maxPixelSize: 300), priority: .high)
/// let local = ImageRequest(source: .file(bundledFileURL))
/// ```
public struct ImageRequest: Sendable, CustomStringConvertible {
    /// The request sent to the network, after the pipeline's `requestModifier`; its URL is `nil`
    /// for a request whose source is a data closure or a local file.
    public var urlRequest: URLRequest { didSet { updateCacheKey() } }
    /// Downsample while decoding; `nil` decodes at full size.
    public var thumbnail: ThumbnailOptions? { didSet { updateCacheKey() } }
    /// Processing steps applied in order after decoding. Each step's result is cached in memory
    /// and shared by every request with the same prefix of steps.
    public var processors: [any ImageProcessing] { didSet { updateCacheKey() } }
    /// How soon this request runs relative to others. It can change while the task is queued
    /// through `ImageTask.priority`. Default `.normal`.
    public var priority: Priority
    /// Switches for how the request uses the caches: which layers it reads and writes, and how
    /// it treats stored HTTP responses (offline first, cache only, reload). Default none: every
    /// layer, HTTP's rules.
    public var options: Options
    /// Whether this request gets previews while a progressive JPEG downloads; `nil` (default)
    /// follows the pipeline's `isProgressiveDecodingEnabled`. Requests that differ only here share
    /// their work; previews are made when the first of them to start the download wants them.
    public var isProgressiveDecodingEnabled: Bool?
    /// The image's name in every cache key, in place of its URL: for URLs that change while the
    /// image does not (signed URLs with a new `Signature` each time). Requests with one `imageID`
    /// share the memory and disk caches, a download in flight and the bytes kept to resume one;
    /// each is still sent to its own URL. The app promises the URLs name one image. Default `nil`:
    /// the pipeline's `imageIDRule`, else the URL, names it. See `ImageIDRule`.
    ///
    /// ```swift
    /// var request = ImageRequest(url: signedURL)
    /// request.imageID = "photo-42"
    /// ```
    public var imageID: String? { didSet { updateCacheKey() } }
    /// This request's own parameters of the HTTP cache's rules (`minimumFreshness`, the storage
    /// policy, ...), in place of the pipeline's `httpCacheOptions`; default `nil`: the pipeline's.
    /// Which layers are used, and whether stored responses are used at all, are `options`.
    public var httpCacheOptions: HTTPCache.Options?
    /// How this request's download is retried; `nil` (default) follows the pipeline's
    /// `retryPolicy`, `.never` turns retries off. Requests that differ only here share their
    /// download, which follows the policy of the first of them to start it.
    public var retryPolicy: RetryPolicy?
    /// Sources tried in order when the one before fails with anything but cancellation (after
    /// its retries): mirrors, a smaller rendition, a bundled or generated image
    /// (`ImageSource.data(id:_:)`). `ImageResponse.source` says which source made the image.
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
    public var lowDataImage: LowDataImage?
    /// How an animated image is delivered: every frame, a frame source that decodes while it
    /// plays, or the first frame only (`.firstFrameOnly`, Kingfisher's `onlyLoadFirstFrame`); see
    /// `AnimationDelivery`. Default `nil`: the pipeline's `animationDelivery`. Requests that
    /// differ here are cached apart.
    public var animationDelivery: AnimationDelivery? { didSet { updateCacheKey() } }
    /// The request's source when it is not a URL: an app's closure or a local file
    /// (`init(source:)`); `nil` for a URL.
    var dataSource: ImageSource.DataSource?

    /// The URL of the image; `nil` for a data closure's or a local file's, and when built from a
    /// `URLRequest` without one.
    public var url: URL? { urlRequest.url }

    /// Creates a request for the image at `url`. A `nil` URL fails with
    /// `ImagePipelineError.invalidURL`. Every parameter but `url` has the default its property
    /// documents.
    ///
    /// ```swift
    /// ImageRequest(url: url, thumbnail: .init(size: CGSize(width: 100, height: 100)), processors: [.circle])
    /// ```
    public init(url: URL?, thumbnail: ThumbnailOptions? = nil, processors: [any ImageProcessing] = [],
                priority: Priority = .normal, options: Options = []) {
        var urlRequest = URLRequest(url: url ?? URL(string: "about:blank")!)
        if url == nil { urlRequest.url = nil }
        self.init(urlRequest: urlRequest, dataSource: nil, thumbnail: thumbnail, processors: processors,
                  priority: priority, options: options)
    }

    /// Creates a request for the image `source` names: a URL, a `URLRequest` (its headers,
    /// method, timeout and cache policy, which adds the matching `options`), a local file, or
    /// an app's closure that returns the bytes (cached by its identifier). Every other
    /// parameter has the default its property documents.
    ///
    /// ```swift
    /// ImageRequest(source: .urlRequest(signedRequest))
    /// ImageRequest(source: .file(Bundle.main.url(forResource: "hero", withExtension: "jpg")!))
    /// ImageRequest(source: .data(id: asset.localIdentifier) { try await asset.imageData() },
    ///              thumbnail: .init(maxPixelSize: 300))
    /// ```
    public init(source: ImageSource, thumbnail: ThumbnailOptions? = nil, processors: [any ImageProcessing] = [],
                priority: Priority = .normal, options: Options = []) {
        switch source.kind {
        case .url(let urlRequest):
            self.init(urlRequest: urlRequest, dataSource: nil, thumbnail: thumbnail, processors: processors,
                      priority: priority, options: options.union(Options(urlRequest.cachePolicy)))
        case .data(let dataSource):
            var urlRequest = URLRequest(url: URL(string: "about:blank")!)
            urlRequest.url = nil
            self.init(urlRequest: urlRequest, dataSource: dataSource, thumbnail: thumbnail, processors: processors,
                      priority: priority, options: options)
        }
    }

    private init(urlRequest: URLRequest, dataSource: ImageSource.DataSource?, thumbnail: ThumbnailOptions?,
                 processors: [any ImageProcessing], priority: Priority, options: Options) {
        self.urlRequest = urlRequest
        self.dataSource = dataSource
        self.thumbnail = thumbnail
        self.processors = processors
        self.priority = priority
        self.options = options
        self.cacheKey = Self.makeCacheKey(urlRequest, dataSource?.id, thumbnail, processors, nil)
    }

    /// The source the request loads first: its URL request, or its closure or file.
    public var source: ImageSource {
        dataSource.map { ImageSource(kind: .data($0)) } ?? ImageSource(kind: .url(urlRequest))
    }

    /// The request's own source, then the alternative ones, in the order they are tried.
    var sources: [ImageSource] { [source] + alternativeSources }

    /// How stored HTTP responses are used, from `options`: cache only, offline first, reload
    /// unconditionally or revalidating, else HTTP's rules (the first of those set, in that order).
    var cachePolicy: HTTPCachePolicy {
        if options.contains(.returnCacheDataDontLoad) { return .returnCacheDataDontLoad }
        if options.contains(.returnCacheDataElseLoad) { return .returnCacheDataElseLoad }
        if options.contains(.reloadIgnoringCachedData) { return .reloadIgnoringCacheData }
        if options.contains(.reloadRevalidatingCachedData) { return .reloadRevalidatingCacheData }
        return .useProtocolCachePolicy
    }

    /// The key of the decoded and processed image in the memory cache. Kept up to date as the
    /// request changes, so a memory lookup does not rebuild it.
    public private(set) var cacheKey: ImageCacheKey

    mutating func updateCacheKey() {
        cacheKey = Self.makeCacheKey(urlRequest, imageID ?? dataSource?.id, thumbnail, processors, animationDelivery)
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

    /// Switches for how a request uses the caches (Nuke's names).
    ///
    /// ```swift
    /// ImageRequest(url: url, options: [.reloadIgnoringCachedData])   // a pull to refresh
    /// ImageRequest(url: url, options: .returnCacheDataElseLoad)      // offline first
    /// ```
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
        /// Neither read nor write the disk cache: the image is kept in memory only.
        public static let disableDiskCache: Options = [.disableDiskCacheReads, .disableDiskCacheWrites]
        /// Do not store the processed result (thumbnail, processors) on disk; the original still is.
        public static let disableProcessedDiskCacheWrites = Options(rawValue: 1 << 4)
        /// Offline first: any stored response is used, however stale; the network only on a miss.
        public static let returnCacheDataElseLoad = Options(rawValue: 1 << 5)
        /// Cache only: the memory cache, else any stored response however stale; a miss fails
        /// with `ImagePipelineError.cacheMiss` (without a disk cache, on a memory miss).
        public static let returnCacheDataDontLoad = Options(rawValue: 1 << 6)
        /// Always load from the network, unconditionally, skipping the memory cache too (a pull to
        /// refresh really asks the server); the response is still stored.
        public static let reloadIgnoringCachedData = Options(rawValue: 1 << 7)
        /// Always ask the server, skipping the memory cache, conditionally when a stored response
        /// has a validator (a 304 then answers with the stored bytes).
        public static let reloadRevalidatingCachedData = Options(rawValue: 1 << 8)

        /// The options that say how stored HTTP responses are used.
        static let cachePolicies: Options = [.returnCacheDataElseLoad, .returnCacheDataDontLoad, .reloadIgnoringCachedData,
                                             .reloadRevalidatingCachedData]

        /// The option that gives `URLRequest.CachePolicy`'s meaning; none for the protocol's own.
        init(_ policy: URLRequest.CachePolicy) {
            switch HTTPCachePolicy(policy) {
            case .useProtocolCachePolicy: self = []
            case .returnCacheDataElseLoad: self = .returnCacheDataElseLoad
            case .returnCacheDataDontLoad: self = .returnCacheDataDontLoad
            case .reloadIgnoringCacheData: self = .reloadIgnoringCachedData
            case .reloadRevalidatingCacheData: self = .reloadRevalidatingCachedData
            }
        }
    }
}
