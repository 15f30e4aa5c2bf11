import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ImagePipeline {
    /// Everything a pipeline is built from. The defaults suit a scrolling list of remote images:
    /// a memory cache, six downloads at a time, decoding on every core.
    ///
    /// ```swift
    /// var configuration = ImagePipeline.Configuration()     // `import Shashin` wires the decoder
    /// configuration.maxConcurrentDownloads = 3
    /// configuration.requestModifier = { request in
    ///     var request = request
    ///     request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    ///     return request
    /// }
    /// ```
    public struct Configuration: Sendable {
        /// Loads bytes; default `URLSessionDataLoader.shared` (`import Shashin` makes it
        /// `PlatformDataLoader.shared`: AsyncHTTPClient on Linux). A server loading user-supplied
        /// URLs gives its loader `destinationPolicy: .publicAddressesOnly`.
        public var dataLoader: any DataLoading
        /// Chooses the decoder for each image from its sniffed format. `import Shashin` makes the
        /// platform's decoder (ImageIO or libvips) its default; register your own to add a format
        /// or replace a built-in one.
        ///
        /// ```swift
        /// configuration.decoders.register(MyWebPDecoder(), for: .webp)
        /// ```
        public var decoders: ImageDecoderRegistry
        /// One decoder for every format. Reading it gives `decoders`; setting it replaces every
        /// registration with a registry whose default decoder is the new one.
        public var decoder: any ImageDecoding {
            get { decoders }
            set { decoders = ImageDecoderRegistry(defaultDecoder: newValue) }
        }
        /// Encodes processed results for the disk cache (`diskCachePolicy` `.processed` or `.all`);
        /// `import Shashin` gives the platform's. `nil`: processed results are not stored.
        public var encoder: (any ImageEncoding)?
        /// Decoded images kept in memory; default a `MemoryCache()`; `nil` turns it off.
        public var memoryCache: (any ImageCaching)?
        /// Original bytes (and, by `diskCachePolicy`, processed results) kept on disk, with HTTP
        /// caching (RFC 9111) in front of the loader; default `nil`: no disk cache, no files written.
        public var diskCache: (any DataCaching)?
        /// What the disk cache keeps; default `.originals`.
        public var diskCachePolicy: DiskCachePolicy = .originals
        /// How the disk cache may bend HTTP's rules: minimum freshness, stale on error, stale while
        /// revalidate, shared-cache mode. Default: the plain rules for a private cache.
        public var httpCacheOptions = HTTPCache.Options()
        /// Quality of lossy formats when processed results are stored; default 0.85.
        public var encodingQuality: Double = 0.85
        /// Downloads at once; default 6.
        public var maxConcurrentDownloads: Int = 6
        /// Decodes at once; default the number of cores the process may run on (on Linux, those of
        /// its CPU affinity: `taskset`, a container's cpuset).
        public var maxConcurrentDecodes: Int = AvailableProcessors.count
        /// Processing steps at once; default the number of cores the process may run on.
        public var maxConcurrentProcessing: Int = AvailableProcessors.count
        /// The largest response body accepted; default 50 MB.
        public var maxResponseBytes: Int = 50 << 20
        /// The most pixels an image may declare before it is refused as a decompression bomb,
        /// and the most a processor may make (it reaches them as `ImageProcessingContext`);
        /// default 100 megapixels.
        public var maxPixelCount: Int = ImageDecodingContext.defaultMaxPixelCount
        /// The most bytes one animation's decoded frames may take; over it (or when all its
        /// frames pass `maxPixelCount`) the animation is streamed (`animationDelivery`
        /// `.automatic`) or only its first frame is decoded (`.allFrames`, and
        /// `ImageAnimation.shortfall` says so). Default 64 MB.
        public var maxAnimationByteCount: Int = ImageDecodingContext.defaultMaxAnimationByteCount
        /// How animated GIF, WebP and PNG (APNG) images are delivered; a request can choose its own
        /// (`ImageRequest.animationDelivery`). Default `.automatic`: every frame decoded up front
        /// when they fit `maxAnimationByteCount`, otherwise a frame source that decodes while it
        /// plays (`ImageAnimation.frameSource`), so a long animation plays in a few MB.
        public var animationDelivery: AnimationDelivery = .automatic
        /// The memory decodes may hold at once, estimated from each image's header before its
        /// pixels are decoded; an image whose estimate alone is over it fails with
        /// `decodeMemoryExceeded`. Default `DecodeMemoryBudget.shared` (256 MB, one for the process).
        public var decodeMemoryBudget: DecodeMemoryBudget = .shared
        /// URL schemes the pipeline loads; default `http` and `https`. Add `file` (local files) or
        /// `data` (inline `data:` URLs) to allow them; any other scheme fails with `unsupportedScheme`.
        /// Redirects follow only `http` and `https`, and only those of the two this set holds
        /// (`["https"]` refuses a redirect to `http`), in the built-in loaders (`RedirectSchemes`).
        public var allowedSchemes: Set<String> = ["http", "https"]
        /// Runs before every network request (add headers, sign URLs); may suspend. Default none.
        public var requestModifier: (@Sendable (URLRequest) async throws -> URLRequest)?
        /// Answers HTTP authentication challenges (Basic, and Digest with MD5 or SHA-256): asked
        /// once per protection space (origin, realm, scheme) when a server answers 401 with
        /// `WWW-Authenticate`; `nil` from it fails the task with `httpStatus(401)`. Default none:
        /// a challenge is that 401. See `AuthenticatingDataLoader` for what is sent where.
        ///
        /// ```swift
        /// configuration.credentialProvider = { space in
        ///     space.host == "photos.example.com" ? Credential(user: "ann", password: "secret") : nil
        /// }
        /// ```
        public var credentialProvider: AuthenticatingDataLoader.CredentialProvider?
        /// Whether requests get previews while a progressive JPEG downloads (`ImageTask.previews`):
        /// the scans received so far, decoded at the request's thumbnail size and run through its
        /// processors, never cached. A request's own `isProgressiveDecodingEnabled` overrides it.
        /// Default `false`.
        public var isProgressiveDecodingEnabled = false
        /// The shortest time between two previews of one image, in seconds; scans completed
        /// sooner give none. Default 0.5.
        public var progressiveDecodingInterval: TimeInterval = 0.5
        /// The bytes the previews of one image may decode, as a fraction of the image's announced
        /// size (`Content-Length`), which bounds their CPU against the final decode's. A decoder
        /// with a session (`ProgressiveDecodingSession`: libvips' decoder, through libjpeg-turbo's
        /// buffered-image mode) decodes each byte once, so this is how far into the file the
        /// previews go: 0.5, the scans that end in the first half (and the session's work is not
        /// lost: the final image comes from it). A decoder without one (ImageIO) decodes each
        /// preview from the start of the file, and every preview's bytes count. A scan past the
        /// budget gives no preview. Default 0.5; `.infinity` for no limit (the interval still
        /// applies), and no limit when the size is not announced.
        public var progressiveDecodingBudget: Double = 0.5
        /// A fixed credential per host (lowercased), answering any challenge from that host ahead
        /// of `credentialProvider`. Default none.
        public var credentials: [String: Credential] = [:]
        /// Where the first bytes of downloads that ended early are kept (a dropped connection, a
        /// timeout, the last subscriber cancelling), so that the next load of the URL asks only
        /// for the rest with `Range` and `If-Range` (RFC 9110 §14). Kept only for responses with
        /// `Accept-Ranges: bytes`, a known length and a strong validator (a strong `ETag`, or a
        /// `Last-Modified` at least a second older than `Date`); also in `diskCache`, when there
        /// is one, so a resume survives a relaunch. Default a `ResumableDataStore()` (32 MB, in
        /// memory); `nil`: downloads always start from the first byte.
        public var resumableData: ResumableDataStore? = ResumableDataStore()
        /// Names images in every cache key for requests without an `imageID`: requests whose URLs
        /// it gives one name share the memory and disk caches, a download in flight and the bytes
        /// kept to resume one, each still sent to its own URL. Default `nil`: the URL names the image.
        ///
        /// ```swift
        /// configuration.imageIDRule = .droppingQueryItems(["Signature", "Expires", "Key-Pair-Id"])
        /// ```
        public var imageIDRule: ImageIDRule?
        /// When a download that failed for a passing reason (a dropped connection, a timeout, a
        /// `5xx`, `408`, a `429` with `Retry-After`) is tried again, and how soon; a request's
        /// own `retryPolicy` overrides it. The waits hold no download slot, and a retry resumes
        /// from the bytes already received (`resumableData`). Default `nil`: no retry.
        ///
        /// ```swift
        /// configuration.retryPolicy = RetryPolicy(maxAttempts: 3)
        /// ```
        public var retryPolicy: RetryPolicy?
        /// The app's switch for a constrained network (a metered link): while it is on, requests
        /// with a `lowDataImage` load that instead of their own source. A reference: flip it at
        /// run time, from any thread, and every pipeline made with it follows. Default a new
        /// switch, off. (On Apple platforms Low Data Mode switches such requests too, without it.)
        ///
        /// ```swift
        /// pipeline.configuration.networkConstraint.isConstrained = true
        /// ```
        public var networkConstraint = NetworkConstraint()
        /// Hears every task's events, for logging and metrics (`import Shashin` has
        /// `ImagePipelineLogger`: signposts and `os.Logger` on Apple platforms, swift-log on
        /// Linux). Default `nil`.
        ///
        /// ```swift
        /// configuration.observer = ImagePipelineLogger()
        /// ```
        public var observer: (any ImagePipelineObserver)?

        /// A configuration with the given decoder for every format (and encoder), and every other default.
        public init(decoder: any ImageDecoding, encoder: (any ImageEncoding)? = nil) {
            self.decoders = ImageDecoderRegistry(defaultDecoder: decoder)
            self.encoder = encoder
            self.dataLoader = URLSessionDataLoader.shared
            self.memoryCache = MemoryCache()
        }
    }
}
