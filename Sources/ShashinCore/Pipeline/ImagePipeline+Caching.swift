import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One image in every layer: read, store and remove it by request, under the keys the pipeline
/// itself uses (`imageID`, then `imageIDRule`, then the URL). Removals are `async`: the disk work
/// runs on the pipeline's disk-write queue, after the writes already queued, and never on the
/// caller's thread.
extension ImagePipeline {
    /// Removes the image of `request` from every layer: from memory at every size and with every
    /// processing, and from disk its original, each processed variant and any bytes kept to
    /// resume its download. The request's thumbnail and processors do not matter: the image does.
    /// A request with a `lowDataImage` loses its low-data image the same way: it is a rendition
    /// of the same picture, stale when the picture is. Memory is emptied before this suspends;
    /// the disk's processed variants are found through the disk index's group of the image (a
    /// `DiskCache`; another `DataCaching` removes what `removeEntries(inGroup:)` does), not a scan.
    ///
    /// ```swift
    /// try await pipeline.removeCachedImage(for: ImageRequest(url: avatarURL))   // after the user changed it
    /// ```
    /// - Throws: `DiskCacheError` when the disk cache cannot be written; memory is emptied first.
    public func removeCachedImage(for request: ImageRequest) async throws {
        let named = [request] + (request.lowDataImage.map { [request.lowDataRequest($0)] } ?? [])
        for request in named { removeFromMemory(request) }
        guard configuration.diskCache != nil else { return }
        try await graph.diskWrites.run { [self] in
            for request in named { try removeFromDisk(request) }
        }
    }

    /// Removes from memory the image `request` names (not its low-data image), at every size and
    /// stage, and the bytes kept to resume its download.
    private func removeFromMemory(_ request: ImageRequest) {
        let key = graph.keys.imageKey(for: request)
        let name = key.url
        switch configuration.memoryCache {
        case let cache as MemoryCache: cache.removeImages { $0.url == name }
        case let cache?:
            // A cache that cannot list its keys loses what this request and its stages name.
            for stage in 0...key.processors.count {
                cache.removeImage(forKey: ImageCacheKey(url: name, thumbnail: key.thumbnail, processors: Array(key.processors.prefix(stage)),
                                                        animationDelivery: key.animationDelivery))
                cache.removeImage(forKey: ImageCacheKey(url: name, processors: Array(key.processors.prefix(stage)),
                                                        animationDelivery: key.animationDelivery))
            }
        case nil: break
        }
        configuration.resumableData?.removeValue(forKey: graph.keys.storedKey(for: request) ?? name)
    }

    /// Removes from disk the image `request` names (not its low-data image): its original, any
    /// bytes kept to resume it and every processed variant.
    private func removeFromDisk(_ request: ImageRequest) throws {
        guard let disk = configuration.diskCache else { return }
        let key = graph.keys.imageKey(for: request)
        let name = key.url
        let original = graph.keys.storedKey(for: request)
        if let original {
            try disk.removeEntry(forKey: original)
            try disk.removeEntry(forKey: PartialBodyStorage.diskKey(for: original))
        }
        if let processed = graph.processedStore {
            try disk.removeEntry(forKey: processed.key(for: request, cacheKey: key))
        }
        // Every processed variant, for any size, processors or credential: filed under the image's name.
        try disk.removeEntries(inGroup: name)
    }

    /// Stores `image` as the image of `request` (its thumbnail and processors included) in the
    /// layers `caches` names: in memory at once, so the next load is answered synchronously, and on
    /// disk in the background, encoded with the configuration's `encoder` (JPEG, or PNG when the
    /// image has transparency; an animation as the file it was decoded from, or as WebP when
    /// processed; a streamed animation not at all when processed) and served as fresh for a week, then
    /// revalidated. On disk a request with a thumbnail or processors is stored as a processed result
    /// (`diskCachePolicy` `.processed` or `.all`), one without as the original bytes (`.originals` or
    /// `.all`); a layer the configuration leaves out is skipped. `backgroundWorkCount` counts the
    /// write until it is done.
    ///
    /// ```swift
    /// pipeline.storeCachedImage(edited, for: ImageRequest(url: photoURL, thumbnail: .init(maxPixelSize: 300)))
    /// pipeline.storeCachedImage(preview, for: ImageRequest(url: photoURL), caches: .memory)
    /// ```
    public func storeCachedImage(_ image: PlatformImage, for request: ImageRequest, caches: Caches = .all) {
        let key = graph.keys.imageKey(for: request)
        if caches.contains(.memory) { configuration.memoryCache?.store(image, forKey: key) }
        guard caches.contains(.disk) else { return }
        if ProcessedImageStore.isProcessed(request) {
            // A streamed animation holds no frames to encode: it streams again from its original.
            guard image.animation?.isStreamed != true else { return }
            graph.processedStore?.storeGivenInBackground(image, request: request, cacheKey: key, lifetime: Self.givenLifetime)
        } else if graph.httpCache != nil, graph.keys.storedKey(for: request) != nil {
            if let animation = image.animation {
                // An animation is kept as the file it was decoded from, with every frame.
                let data = animation.data
                graph.diskWrites.enqueue { [self] in _ = try? storeCachedData(data, for: request, lifetime: Self.givenLifetime) }
            } else if let encoder = configuration.encoder {
                let carried = UncheckedImage(image)
                let quality = configuration.encodingQuality
                graph.diskWrites.enqueue { [self] in
                    let format = ProcessedImageStore.format(original: .jpeg, hasTransparency: carried.value.mayHaveTransparency)
                    guard let data = ProcessedImageStore.encode(carried.value, as: format, with: encoder, quality: quality) else { return }
                    _ = try? storeCachedData(data, for: request, lifetime: Self.givenLifetime)
                }
            }
        }
    }

    /// How long an image the app stores is served as fresh: a week, as `storeCachedData`'s default.
    static let givenLifetime: TimeInterval = 7 * 86_400

    /// The layers `storeCachedImage(_:for:caches:)` writes.
    public struct Caches: OptionSet, Sendable, Hashable {
        /// The layers as bits: 1 memory, 2 disk.
        public let rawValue: Int
        /// The layers `rawValue`'s bits name.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// The memory cache: decoded, answered synchronously.
        public static let memory = Caches(rawValue: 1 << 0)
        /// The disk cache: encoded, written in the background.
        public static let disk = Caches(rawValue: 1 << 1)
        /// Memory and disk.
        public static let all: Caches = [.memory, .disk]
    }

    /// Stores `data` on disk as the original bytes of `request`'s image (an upload the app just
    /// made, for instance), so that loads of it at any size decode these bytes and download
    /// nothing. The entry is served as fresh for `lifetime` seconds (stored with
    /// `Cache-Control: max-age`), then revalidated like any other; with `response`, its status and
    /// headers are stored instead and HTTP's rules alone decide. A request with credentials files
    /// the bytes for those credentials only, as a download would.
    ///
    /// ```swift
    /// try pipeline.storeCachedData(jpeg, for: ImageRequest(url: uploadedURL))
    /// ```
    /// - Returns: `false` when the pipeline keeps no originals on disk (no disk cache, or
    ///   `diskCachePolicy` `.processed`), or the request's URL is not HTTP.
    /// - Throws: `DiskCacheError` when the disk cache cannot be written.
    @discardableResult
    public func storeCachedData(_ data: Data, for request: ImageRequest, lifetime: TimeInterval = 7 * 86_400,
                                response: HTTPURLResponse? = nil) throws -> Bool {
        guard let cache = graph.httpCache, let key = graph.keys.storedKey(for: request) else { return false }
        let requestHeaders = HTTPHeaderFields(request.urlRequest.allHTTPHeaderFields ?? [:])
        let now = cache.now()
        let credential = HTTPCache.credential(of: requestHeaders, url: request.url, loader: graph.dataLoader)
        var stored: StoredResponse
        if let response {
            stored = StoredResponse(status: response.statusCode, headers: HTTPCache.storedHeaders(HTTPHeaderFields(response: response)),
                                    requestHeaders: requestHeaders, requestTime: now, responseTime: now)
            stored.credential = credential
        } else {
            stored = StoredResponse.givenByApp(format: ImageFormat(sniffing: data), byteCount: data.count, lifetime: lifetime,
                                               requestHeaders: requestHeaders, credential: credential, now: now)
        }
        try cache.storage.store(data, metadata: HTTPCache.metadata(of: stored), forKey: key)
        return true
    }

    /// The original bytes of `request`'s image on disk, when the disk cache holds them for the
    /// request's credentials (however old: this reads, it does not judge freshness); `nil` otherwise.
    ///
    /// ```swift
    /// if let bytes = try pipeline.cachedData(for: ImageRequest(url: url)) { share(bytes) }
    /// ```
    /// - Throws: `DiskCacheError` when the disk cache cannot be read.
    public func cachedData(for request: ImageRequest) throws -> Data? {
        guard let cache = graph.httpCache, let key = graph.keys.storedKey(for: request),
              let entry = try cache.storage.entry(forKey: key),
              let metadata = entry.metadata, let stored = HTTPCache.storedResponse(from: metadata) else { return nil }
        let headers = HTTPHeaderFields(request.urlRequest.allHTTPHeaderFields ?? [:])
        guard stored.credential == HTTPCache.credential(of: headers, url: request.url, loader: graph.dataLoader),
              (200..<300).contains(stored.status) else { return nil }
        return entry.data
    }

    /// The disk cache's key of `request`'s original bytes, as `DiskCache.entries()` lists it: the
    /// URL (without its fragment), or `image-id:` and the request's identifier (its `imageID`,
    /// else the pipeline's `imageIDRule`'s) percent-encoded. `nil` for a URL that is not HTTP.
    /// For tools that look into a cache (`shashin cache show`).
    public func diskCacheKey(for request: ImageRequest) -> String? {
        graph.keys.storedKey(for: request)
    }

    /// Empties every layer: the memory cache and the bytes kept in memory to resume downloads
    /// before this suspends, then the disk cache (originals, processed results, kept partial
    /// bodies), after the writes already queued. Memory alone: `trimMemory()`.
    ///
    /// ```swift
    /// try await pipeline.removeAllCaches()   // "Clear cache" in the app's settings
    /// ```
    /// - Throws: `DiskCacheError` when the disk cache cannot be emptied; memory is emptied first.
    public func removeAllCaches() async throws {
        configuration.memoryCache?.removeAll()
        configuration.resumableData?.removeAll()
        guard let disk = configuration.diskCache else { return }
        try await graph.diskWrites.run { try disk.removeAll() }
    }
}
