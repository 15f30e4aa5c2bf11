import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Processed results in the disk cache (`DiskCachePolicy.processed` or `.all`): encoded in the
/// original's format when it can hold them (PNG when transparency appears in a JPEG or GIF, or
/// when the encoder cannot write the original's format, as ImageIO cannot write WebP; an
/// animation with its frames as animated WebP), under a key of their own that includes the request's credentials, with the original response's
/// HTTP metadata — so a processed result is used only while the original would be (fresh, or under
/// an offline policy), and never for other credentials.
///
/// Writes go through the pipeline's `DiskWriteQueue`, off every caller's path.
final class ProcessedImageStore: Sendable {
    let storage: any DataCaching
    let encoder: any ImageEncoding
    let decoder: any ImageDecoding
    let quality: Double
    let maxPixelCount: Int
    let memoryBudget: DecodeMemoryBudget
    let maxAnimationByteCount: Int
    /// HTTP's rules, for the metadata stored with each result and its use: the originals' rules,
    /// bent by the same options.
    let rules: CachePolicyEvaluator
    let options: HTTPCache.Options
    /// The clock every age and freshness is computed against.
    let now: @Sendable () -> Date
    /// What sends the originals' requests: the credential it adds is part of a result's key.
    let loader: any DataLoading
    let writes: DiskWriteQueue

    init(storage: any DataCaching, encoder: any ImageEncoding, decoder: any ImageDecoding, quality: Double,
         maxPixelCount: Int, memoryBudget: DecodeMemoryBudget = .shared,
         maxAnimationByteCount: Int = ImageDecodingContext.defaultMaxAnimationByteCount, loader: any DataLoading,
         options: HTTPCache.Options, writes: DiskWriteQueue = DiskWriteQueue(), now: @escaping @Sendable () -> Date = { Date() }) {
        self.storage = storage
        self.writes = writes
        self.encoder = encoder
        self.decoder = decoder
        self.quality = quality
        self.maxPixelCount = maxPixelCount
        self.memoryBudget = memoryBudget
        self.maxAnimationByteCount = maxAnimationByteCount
        self.loader = loader
        self.options = options
        self.now = now
        self.rules = CachePolicyEvaluator(heuristicFraction: options.heuristicFraction, heuristicCap: options.heuristicCap)
    }

    /// The rules and options `request` is judged by: its own `httpCacheOptions`, else the store's.
    private func rules(for request: ImageRequest) -> (CachePolicyEvaluator, HTTPCache.Options) {
        guard let own = request.httpCacheOptions else { return (rules, options) }
        return (CachePolicyEvaluator(heuristicFraction: own.heuristicFraction, heuristicCap: own.heuristicCap), own)
    }

    /// Whether a request's result counts as processed: it has a thumbnail or processors.
    static func isProcessed(_ request: ImageRequest) -> Bool {
        request.thumbnail != nil || !request.processors.isEmpty
    }

    /// The storage key: never a URL alone, so it cannot meet an original's; credentials included.
    func key(for request: ImageRequest, cacheKey: ImageCacheKey) -> String {
        key(credential: credential(of: request, headers: HTTPHeaderFields(request.urlRequest.allHTTPHeaderFields ?? [:])),
            cacheKey: cacheKey)
    }

    private func key(credential: String?, cacheKey: ImageCacheKey) -> String {
        "processed " + (credential.map { "[\($0)] " } ?? "") + cacheKey.description
    }

    /// The credential `request` is sent with (its own `Authorization`, or the loader's for its origin).
    private func credential(of request: ImageRequest, headers: HTTPHeaderFields) -> String? {
        HTTPCache.credential(of: headers, url: request.urlRequest.url, loader: loader)
    }

    /// The stored result when the request may use it, decoded as is; `nil` on a miss or when the
    /// original's HTTP metadata says it is too old for this request. A result that no longer
    /// decodes is removed.
    func image(for request: ImageRequest, cacheKey: ImageCacheKey) throws -> PlatformImage? {
        let key = key(for: request, cacheKey: cacheKey)
        guard let entry = try storage.entry(forKey: key) else { return nil }
        if let metadata = entry.metadata, let stored = HTTPCache.storedResponse(from: metadata) {
            let headers = HTTPHeaderFields(request.urlRequest.allHTTPHeaderFields ?? [:])
            switch request.cachePolicy {
            case .returnCacheDataElseLoad, .returnCacheDataDontLoad:
                break
            case .useProtocolCachePolicy:
                let (rules, options) = rules(for: request)
                let verdict = rules.suitability(of: stored, for: headers, now: now(), options: options)
                guard verdict == .fresh || verdict == .staleAcceptable else { return nil }
            case .reloadIgnoringCacheData, .reloadRevalidatingCacheData:
                return nil
            }
        }
        // The stored pixels are the thumbnail already; they carry its scale, as when first decoded.
        let context = ImageDecodingContext(format: ImageFormat(sniffing: entry.data), thumbnail: nil, maxPixelCount: maxPixelCount,
                                           memoryBudget: memoryBudget, maxAnimationByteCount: maxAnimationByteCount,
                                           scale: request.thumbnail?.scale,
                                           animationDelivery: cacheKey.animationDelivery ?? .automatic)
        do {
            return try decoder.decode(entry.data, context: context)
        } catch {
            try? storage.removeEntry(forKey: key)
            return nil
        }
    }

    /// Encodes and stores `image` in the background, with the HTTP metadata of `urlResponse`;
    /// nothing is stored when that response may not be (`no-store`, for instance), nor without a
    /// response (an original from the memory cache, whose rules are unknown).
    func storeInBackground(_ image: PlatformImage, originalFormat: ImageFormat?, urlResponse: URLResponse?,
                           request: ImageRequest, cacheKey: ImageCacheKey) {
        // Stored without metadata, a result would be served forever, whatever the original allowed.
        // A streamed animation is not stored: its frames are decoded from the original, which
        // the disk cache keeps; a still first frame stored here would read back without them.
        guard let urlResponse, image.animation?.isStreamed != true else { return }
        let headers = HTTPHeaderFields(request.urlRequest.allHTTPHeaderFields ?? [:])
        let credential = credential(of: request, headers: headers)
        var metadata: Data?
        if let http = urlResponse as? HTTPURLResponse {
            let responseHeaders = HTTPHeaderFields(response: http)
            let now = now()
            let (rules, options) = rules(for: request)
            guard rules.mayStore(status: http.statusCode, requestHeaders: headers, responseHeaders: responseHeaders,
                                 authenticated: credential != nil, now: now, options: options) else { return }
            var stored = StoredResponse(status: http.statusCode, headers: HTTPCache.storedHeaders(responseHeaders),
                                        requestHeaders: headers, requestTime: now, responseTime: now)
            stored.credential = credential
            metadata = HTTPCache.metadata(of: stored)
        }
        enqueueWrite(image, originalFormat: originalFormat, metadata: metadata,
                     key: key(credential: credential, cacheKey: cacheKey), group: cacheKey.url)
    }

    /// Encodes and stores in the background `image`, which the app gives as the result of
    /// `request`: served as fresh for `lifetime` seconds, for the request's credentials only.
    func storeGivenInBackground(_ image: PlatformImage, request: ImageRequest, cacheKey: ImageCacheKey, lifetime: TimeInterval) {
        let headers = HTTPHeaderFields(request.urlRequest.allHTTPHeaderFields ?? [:])
        let credential = credential(of: request, headers: headers)
        let stored = StoredResponse.givenByApp(format: nil, byteCount: nil, lifetime: lifetime, requestHeaders: headers,
                                               credential: credential, now: now())
        // Of unknown origin: a photo is kept as JPEG, an image with transparency as PNG.
        enqueueWrite(image, originalFormat: .jpeg, metadata: HTTPCache.metadata(of: stored),
                     key: key(credential: credential, cacheKey: cacheKey), group: cacheKey.url)
    }

    /// Results are filed under their image's name (`group`): `removeCachedImage` removes every
    /// variant of an image, at any size, processing or credential, through the disk index's group.
    private func enqueueWrite(_ image: PlatformImage, originalFormat: ImageFormat?, metadata: Data?, key: String, group: String) {
        let format = Self.format(original: originalFormat, hasTransparency: image.mayHaveTransparency,
                                 animated: !(image.animation?.frames.isEmpty ?? true))
        let carried = UncheckedImage(image)
        writes.enqueue { [self] in
            // Nothing to store when no format can be written; the image was already delivered.
            guard let data = Self.encode(carried.value, as: format, with: encoder, quality: quality) else { return }
            try? storage.store(data, metadata: metadata, forKey: key, group: group)
        }
    }

    /// `image` encoded as `format`, or as PNG when the encoder cannot write `format` (ImageIO has
    /// no WebP writer): PNG keeps every pixel and the alpha, and every encoder writes it; the
    /// decoder sniffs the format when reading back. `nil` when neither can be written.
    static func encode(_ image: PlatformImage, as format: ImageFormat, with encoder: any ImageEncoding,
                       quality: Double) -> Data? {
        if let data = try? encoder.encode(image, as: format, quality: quality) { return data }
        guard format != .png else { return nil }
        return try? encoder.encode(image, as: .png, quality: quality)
    }

    /// The format a processed result is stored in: the original's when it can hold the result.
    static func format(original: ImageFormat?, hasTransparency: Bool, animated: Bool = false) -> ImageFormat {
        // An animation keeps its frames, durations and loop count in WebP (alpha, and no palette
        // to quantise to); an encoder without a WebP writer (ImageIO) stores the first frame as PNG.
        if animated { return .webp }
        return switch original {
        case .webp?: .webp
        case .jpeg?: hasTransparency ? .png : .jpeg
        default: .png
        }
    }
}

/// Carries an image to another thread: images are never mutated after decoding. Unchecked only
/// where `PlatformImage` is not `Sendable` (Apple platforms); where it is `Bitmap`, checked.
struct UncheckedImage {
    let value: PlatformImage
    init(_ value: PlatformImage) { self.value = value }
}

// Asserted only where `PlatformImage` is not `Sendable` on every supported system (see `PlatformImage`).
#if canImport(UIKit) || canImport(AppKit) || SHASHIN_APPLE_SHAPE
extension UncheckedImage: @unchecked Sendable {} // immutable; images are never mutated after decoding
#else
extension UncheckedImage: Sendable {}
#endif
