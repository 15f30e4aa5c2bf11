import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The image of a request after its first `stage` processors, shared by every request that needs
/// it. Each stage is a subclass that says what it waits for and what it makes of it:
/// `DecodedImageJob` (stage 0) decodes the fetched bytes, `ProcessedImageJob` (stage n) applies
/// processor n to stage n-1's image. What every stage does is here:
///
/// - It first looks in the memory cache, so a cached prefix is never recomputed and a cached
///   stage downloads nothing.
/// - The last stage of a processed request reads its stored result from the disk cache before
///   asking the stage below, and stores what it makes there.
/// - The CPU work runs on a bounded work queue and a dispatch thread: never on the Swift pool (a
///   long decode there would starve every other async task), never on the graph's actor.
/// - Previews are made one at a time, never once the final work has begun, and never cached.
class ImageJob: Job<ImageResult> {
    nonisolated let request: ImageRequest
    nonisolated let stage: Int
    /// The graph's key for this job.
    nonisolated let key: ImageJobKey
    nonisolated var cacheKey: ImageCacheKey { key.cacheKey }
    /// What the download under this job sends (`CacheKeys.fetchKey(for:)` of the request).
    nonisolated var fetchKey: String { key.fetchKey }
    /// The subscription to the stage below, until it delivers.
    var upstream: JobSubscription?
    /// A failed read of a stored processed result, reported with the result made instead.
    private var diskErrors: [any Error] = []
    private var workItem: WorkItem?
    /// The preview being made, if any: one at a time, and none once the final work has begun.
    private var previewItem: WorkItem?
    /// Set (on `GraphActor`) when the final work begins; read by preview work on other threads,
    /// which then stops.
    private nonisolated let finalStarted = Locked(false)

    init(graph: JobGraph, request: ImageRequest, stage: Int, key: ImageJobKey) {
        self.request = request
        self.stage = stage
        self.key = key
        super.init(graph: graph)
    }

    /// Subscribes `upstream` to what this stage is made from; every subclass provides it.
    func subscribeUpstream() {
        preconditionFailure("\(type(of: self)) must subscribe to the stage it is made from")
    }

    /// The disk store of processed results, for the last stage of a processed request.
    private var processedStore: ProcessedImageStore? {
        guard stage == request.processors.count, ProcessedImageStore.isProcessed(request) else { return nil }
        return graph.processedStore
    }

    /// The store to read this stage's processed result from, unless the request skips disk reads.
    private var processedSource: ProcessedImageStore? {
        request.options.contains(.disableDiskCacheReads) ? nil : processedStore
    }

    /// The store to write this stage's processed result to, unless the request forbids it.
    private var processedDestination: ProcessedImageStore? {
        request.options.isDisjoint(with: [.disableDiskCacheWrites, .disableProcessedDiskCacheWrites]) ? processedStore : nil
    }

    override final func start() {
        if request.readsMemoryCache, let image = graph.configuration.memoryCache?.image(forKey: cacheKey) {
            finish(.success(ImageResult(image: image, urlResponse: nil, cacheType: .memory, timings: ImageTimings())))
            return
        }
        let reloads = request.cachePolicy == .reloadIgnoringCacheData || request.cachePolicy == .reloadRevalidatingCacheData
        if let store = processedSource, !reloads {
            readProcessed(from: store)
        } else {
            subscribeUpstream()
        }
    }

    /// Stops the stage below, the work and the previews; subclasses that hold more call `super`.
    override func didCancel() {
        upstream?.unsubscribe()
        upstream = nil
        workItem?.cancel()
        workItem = nil
        stopPreviews()
    }

    override final func didDispose() {
        graph.forget(self)
    }

    override final func didChangePriority(_ priority: Priority) {
        upstream?.setPriority(priority)
        workItem?.setPriority(priority)
    }

    // MARK: The stored processed result

    /// Looks for the stored processed result on the decode queue; falls back on the stage below.
    private func readProcessed(from store: ProcessedImageStore) {
        let enqueuedAt = monotonicNow()
        let cache = request.options.contains(.disableMemoryCacheWrites) ? nil : graph.configuration.memoryCache
        let cacheKey = self.cacheKey
        let request = self.request
        workItem = graph.decodeQueue.enqueue(priority: priority) { [self] item in
            // SQLite and a decode: blocking work, on a dispatch thread.
            DispatchQueue.global(qos: .userInitiated).async { [self] in
                guard !item.isCancelled else { item.finish(); return }
                let startedAt = monotonicNow()
                let read = Result { try store.image(for: request, cacheKey: cacheKey) }
                item.finish()
                // Wrapped to cross to `GraphActor`: NSImage is Sendable only from macOS 14.
                let image = ((try? read.get()) ?? nil).map(UncheckedImage.init)
                let errors: [any Error] = if case .failure(let error) = read { [error] } else { [] }
                var timings = ImageTimings()
                timings.queued = startedAt - enqueuedAt
                timings.disk = monotonicNow() - startedAt
                if let image { cache?.store(image.value, forKey: cacheKey) }
                // On this thread, as the stages' results are (see `produce`).
                GraphActor.sync { [self, timings] in
                    guard !isDisposed else { return }
                    workItem = nil
                    if let image {
                        finish(.success(ImageResult(image: image.value, urlResponse: nil, cacheType: .disk, timings: timings)))
                    } else {
                        diskErrors = errors
                        subscribeUpstream()
                    }
                }
            }
        }
    }

    // MARK: The final work

    /// Makes this stage's image with `work` on `workQueue`, then stores it in the memory cache (and,
    /// at the last stage of a processed request, on disk) and delivers it; an image an alternative
    /// source made is delivered only. `input` is what the stage below delivered: its timings,
    /// source and response carry on into the result.
    func produce(on workQueue: WorkQueue, from input: Carried, work: @escaping @Sendable () throws -> PlatformImage,
                 record: @escaping @Sendable (inout ImageTimings, TimeInterval) -> Void) {
        upstream = nil
        stopPreviews()
        let enqueuedAt = monotonicNow()
        // An image an alternative source made is not kept under the request's key: it would stand
        // in for the request's own image, which the next load asks for again.
        let keeps = input.imageSource == nil
        let cache = request.options.contains(.disableMemoryCacheWrites) || !keeps ? nil : graph.configuration.memoryCache
        let cacheKey = self.cacheKey
        let request = self.request
        let processedStore = keeps ? processedDestination : nil
        let storageErrors = input.storageErrors + diskErrors
        workItem = workQueue.enqueue(priority: priority) { [self] item in
            // The slot may be granted on `GraphActor`: the work goes to a dispatch thread.
            DispatchQueue.global(qos: .userInitiated).async { [self] in
                guard !item.isCancelled else { item.finish(); return }
                let startedAt = monotonicNow()
                let result = Result { try work() }.map { image -> ImageResult in
                    var timings = input.timings
                    timings.queued += startedAt - enqueuedAt
                    record(&timings, monotonicNow() - startedAt)
                    cache?.store(image, forKey: cacheKey)
                    processedStore?.storeInBackground(image, originalFormat: input.originalFormat, urlResponse: input.urlResponse,
                                                      request: request, cacheKey: cacheKey)
                    return ImageResult(image: image, urlResponse: input.urlResponse, cacheType: input.cacheType, timings: timings,
                                       originalFormat: input.originalFormat, storageErrors: storageErrors,
                                       resumedFromByte: input.resumedFromByte, imageSource: input.imageSource)
                }
                item.finish()
                // On this thread (see `GraphActor`): the graph's work is short, and a dispatch
                // thread never holds the actor, so this takes its lock and wakes no other thread.
                GraphActor.sync { self.finish(result) }
            }
        }
    }

    /// What a stage's result carries on from its input (fetched bytes or an image): how long the
    /// work so far took, where it came from, and what the disk cache reported.
    struct Carried: Sendable {
        var timings: ImageTimings
        var cacheType: ImageResponse.CacheType
        var urlResponse: URLResponse?
        var originalFormat: ImageFormat?
        var storageErrors: [any Error]
        var resumedFromByte: Int?
        var imageSource: ImageSource?
    }

    // MARK: Previews

    /// Makes a preview with `work` on `workQueue` and sends it to the subscribers that want
    /// previews; never stored in a cache. Skipped (returns `false`) while another preview is being
    /// made, once the final work has begun, and when final work waits in the queue: a preview must
    /// not delay a final image.
    @discardableResult
    func runPreview(on workQueue: WorkQueue, work: @escaping @Sendable () -> PlatformImage?) -> Bool {
        guard !isDisposed, previewItem == nil, !finalStarted.current, workQueue.pendingCount == 0 else { return false }
        let finalStarted = self.finalStarted
        previewItem = workQueue.enqueue(priority: priority) { [self] item in
            DispatchQueue.global(qos: .userInitiated).async { [self] in
                let image = item.isCancelled || finalStarted.current ? nil : work().map(UncheckedImage.init)
                item.finish()
                GraphActor.async { [self] in
                    previewItem = nil
                    guard let image, !finalStarted.current else { return }
                    send(preview: ImageResult(image: image.value, urlResponse: nil, cacheType: .none, timings: ImageTimings()))
                }
            }
        }
        return true
    }

    /// No more previews: the final work begins, or the job is cancelled.
    private func stopPreviews() {
        finalStarted.withLock { $0 = true }
        previewItem?.cancel()
        previewItem = nil
    }
}
