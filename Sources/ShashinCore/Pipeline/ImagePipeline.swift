import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Loads images: memory cache, then shared, cancellable, prioritised work — download, decode,
/// process — with every finished image stored in the memory cache.
///
/// ```swift
/// let pipeline = ImagePipeline(configuration: .init())
/// switch pipeline.loadImage(ImageRequest(url: url, thumbnail: .init(maxPixelSize: 300))) {
/// case .cached(let response): show(response.image)          // this frame, no flicker
/// case .inProgress(let task): show(try await task.image)
/// }
/// ```
public final class ImagePipeline: Sendable {
    /// What the pipeline was built with.
    public let configuration: Configuration
    let graph: JobGraph

    /// Creates a pipeline.
    public init(configuration: Configuration) {
        self.configuration = configuration
        self.graph = JobGraph(configuration: configuration)
    }

    /// Starts loading `request`. A memory-cache hit is returned synchronously as `.cached`,
    /// otherwise a running `.inProgress` task. Never waits for work: starting a task takes the
    /// pipeline's graph for a few microseconds (the bookkeeping other threads may hold it for),
    /// on the calling thread.
    public func loadImage(_ request: ImageRequest) -> LoadingImage {
        if let response = cachedResponse(for: request) { return .cached(response) }
        return .inProgress(graph.makeTask(for: request))
    }

    /// Starts loading `request` as a task, even when the image is in memory (the task then
    /// finishes at once with source `.memory`).
    public func imageTask(with request: ImageRequest) -> ImageTask {
        graph.makeTask(for: request)
    }

    /// Loads the response for `request`. Throws `ImagePipelineError`, or `CancellationError` when
    /// the calling Swift `Task` is cancelled.
    public func response(for request: ImageRequest) async throws -> ImageResponse {
        switch loadImage(request) {
        case .cached(let response): return response
        case .inProgress(let task): return try await task.response
        }
    }

    /// Loads the image for `request`. Runs on the caller's actor, so the image needs no
    /// `Sendable` conformance to reach it (`NSImage` has one only from macOS 14).
    public nonisolated(nonsending) func image(for request: ImageRequest) async throws -> PlatformImage {
        try await response(for: request).image
    }

    /// Loads the image at `url`: the one-liner.
    ///
    /// ```swift
    /// let image = try await pipeline.image(for: url)
    /// ```
    public nonisolated(nonsending) func image(for url: URL) async throws -> PlatformImage {
        try await image(for: ImageRequest(url: url))
    }

    /// The image for `request` if it is in the memory cache; synchronous.
    public func cachedImage(for request: ImageRequest) -> PlatformImage? {
        cachedResponse(for: request)?.image
    }

    /// Loads the original bytes of `request` (no decoding), sharing a download in flight for the
    /// same URL and running on the same bounded network queue.
    public func data(for request: ImageRequest) async throws -> (Data, URLResponse?) {
        let fetched = try await graph.fetchData(for: request)
        return (fetched.data, fetched.urlResponse)
    }

    /// Gives memory back: trims the memory cache to `level` (its most recently used images
    /// stay). A cache that is `MemoryTrimming` (as `MemoryCache` is) is trimmed and reports the
    /// trim on its `trims` stream; any other cache is emptied. Memory the loader keeps for reuse
    /// (the AsyncHTTPClient loader's idle body buffers) is freed at any level. Returns the trim,
    /// or `nil` when the cache is not `MemoryTrimming` or there is none.
    ///
    /// ```swift
    /// pipeline.trimMemory(.fraction(0.5))   // keep the most recent half of the decoded bytes
    /// pipeline.trimMemory()                 // .all: empty the memory cache
    /// ```
    @discardableResult
    public func trimMemory(_ level: MemoryTrimLevel = .all, reason: MemoryTrimReason = .requested) -> MemoryTrim? {
        (configuration.dataLoader as? any ReusableMemoryHolding)?.releaseReusableMemory()
        switch configuration.memoryCache {
        case let cache as any MemoryTrimming: return cache.trim(level, reason: reason)
        case let cache?: cache.removeAll(); return nil
        case nil: return nil
        }
    }

    /// Requests not yet finished (image tasks and data loads); 0 when idle.
    public var activeTaskCount: Int { graph.activeTaskCount }

    /// Work that outlives the tasks that caused it: background refreshes of stale disk entries
    /// (stale while revalidate), processed results and images the app stored being written to
    /// disk; 0 when settled.
    public var backgroundWorkCount: Int {
        (graph.httpCache?.backgroundRefreshCount ?? 0) + graph.diskWrites.pendingCount
    }

    /// The request's image in memory; while the network is constrained, else its low-data image.
    private func cachedResponse(for request: ImageRequest) -> ImageResponse? {
        guard request.readsMemoryCache, let cache = configuration.memoryCache else { return nil }
        if let image = cache.image(forKey: graph.keys.imageKey(for: request)) {
            return ImageResponse(image: image, request: request, cacheType: .memory)
        }
        guard let lowData = request.lowDataImage, configuration.networkConstraint.isConstrained,
              let image = cache.image(forKey: graph.keys.imageKey(for: request.lowDataRequest(lowData))) else { return nil }
        return ImageResponse(image: image, request: request, cacheType: .memory, source: lowData.source, isLowData: true)
    }
}
