import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A decoded or processed image on its way to the requests that share it.
struct ImageResult: @unchecked Sendable { // immutable; images are never mutated after decoding
    let image: PlatformImage
    let urlResponse: URLResponse?
    let source: ImageResponse.Source
    let timings: ImageTimings
    /// The format of the original bytes, when they were decoded on the way.
    var originalFormat: ImageFormat? = nil
    /// What the disk cache reported on the way.
    var storageErrors: [any Error] = []
    /// Where the download resumed, when it continued kept bytes.
    var resumedFromByte: Int? = nil
}

/// Produces the image of a request after its first `stage` processors: stage 0 decodes the
/// fetched bytes (at the thumbnail size), stage n applies processor n to stage n-1's image.
/// Each stage first looks in the memory cache, so a cached prefix is never recomputed and a
/// cached stage downloads nothing.
final class ImageJob: Job<ImageResult>, @unchecked Sendable { // confined to `JobGraph.queue`, like every job
    let request: ImageRequest
    let stage: Int
    let cacheKey: ImageCacheKey
    private var upstream: JobSubscription?
    /// A failed read of a stored processed result, reported with the result made instead.
    private var diskErrors: [any Error] = []
    private var workItem: WorkItem?
    /// The preview being made, if any: one at a time, and none once the final work has begun.
    private var previewItem: WorkItem?
    /// When the last preview was started (stage 0), for the configuration's interval.
    private var lastPreviewAt = -Double.infinity
    /// Bytes decoded by previews so far, and the body's announced size (0: unknown), for the
    /// configuration's budget.
    private var previewBytes = 0
    /// The decoder's session for this download's previews (stage 0), once the first preview
    /// asked for one: it holds the decoder's state between previews, and may make the final
    /// image. Closed when the final decode ends or the job is cancelled.
    private var previewSession: (any ProgressiveDecodingSession)?
    private var askedForPreviewSession = false
    private var expectedBytes: Int64 = 0
    /// Set (on the graph's queue) when the final decode or processing begins; read by preview
    /// work on other threads, which then stops.
    private let finalStarted = Locked(false)

    init(graph: JobGraph, request: ImageRequest, stage: Int, cacheKey: ImageCacheKey) {
        self.request = request
        self.stage = stage
        self.cacheKey = cacheKey
        super.init(graph: graph)
    }

    /// The last stage of a processed request, when the disk cache keeps processed results.
    private var processedStore: ProcessedImageStore? {
        guard stage == request.processors.count, ProcessedImageStore.isProcessed(request) else { return nil }
        return graph.processedStore
    }

    override func start() {
        if request.readsMemoryCache, let image = graph.configuration.memoryCache?.image(forKey: cacheKey) {
            finish(.success(ImageResult(image: image, urlResponse: nil, source: .memory, timings: ImageTimings())))
            return
        }
        let reloads = request.cachePolicy == .reloadIgnoringCacheData || request.cachePolicy == .reloadRevalidatingCacheData
        if let store = processedStore, !reloads {
            readProcessed(from: store)
        } else {
            startUpstream()
        }
    }

    private func startUpstream() {
        if stage == 0 {
            upstream = graph.fetchJob(for: request).subscribe(priority: priority, wantsPreviews: wantsPreviews) { [weak self] event in
                switch event {
                case .progress(let progress):
                    self?.expectedBytes = progress.total
                    self?.send(progress: progress)
                case .preview(let partial): self?.decodePreview(partial)
                case .value(let fetched): self?.decode(fetched)
                case .failure(let error):
                    self?.closePreviewSession()
                    self?.finish(.failure(error))
                }
            }
        } else {
            upstream = graph.imageJob(for: request, stage: stage - 1).subscribe(priority: priority, wantsPreviews: wantsPreviews) { [weak self] event in
                switch event {
                case .progress(let progress): self?.send(progress: progress)
                case .preview(let input): self?.processPreview(input)
                case .value(let input): self?.process(input)
                case .failure(let error): self?.finish(.failure(error))
                }
            }
        }
    }

    override func didCancel() {
        upstream?.unsubscribe()
        upstream = nil
        workItem?.cancel()
        workItem = nil
        stopPreviews()
        closePreviewSession()
    }

    override func didChangePriority(_ priority: Priority) {
        upstream?.setPriority(priority)
        workItem?.setPriority(priority)
    }

    // MARK: Stages

    /// Looks for the stored processed result on the decode queue; falls back on the upstream work.
    private func readProcessed(from store: ProcessedImageStore) {
        let enqueuedAt = monotonicNow()
        let cache = request.options.contains(.disableMemoryCacheWrites) ? nil : graph.configuration.memoryCache
        let cacheKey = self.cacheKey
        let request = self.request
        workItem = graph.decodeQueue.enqueue(priority: priority) { [self] item in
            DispatchQueue.global(qos: .userInitiated).async { [self] in
                guard !item.isCancelled else { item.finish(); return }
                let startedAt = monotonicNow()
                let read = Result { try store.image(for: request, cacheKey: cacheKey) }
                item.finish()
                // Wrapped to cross to the graph's queue: NSImage is Sendable only from macOS 14.
                let image = ((try? read.get()) ?? nil).map(UncheckedImage.init)
                let errors: [any Error] = if case .failure(let error) = read { [error] } else { [] }
                let timings = { () -> ImageTimings in
                    var timings = ImageTimings()
                    timings.queued = startedAt - enqueuedAt
                    timings.disk = monotonicNow() - startedAt
                    return timings
                }()
                if let image { cache?.store(image.value, forKey: cacheKey) }
                graph.queue.async { [self] in
                    guard !isDisposed else { return }
                    workItem = nil
                    if let image {
                        finish(.success(ImageResult(image: image.value, urlResponse: nil, source: .disk, timings: timings)))
                    } else {
                        diskErrors = errors
                        startUpstream()
                    }
                }
            }
        }
    }

    private func decode(_ fetched: FetchedData) {
        upstream = nil
        stopPreviews()
        let decoder = graph.configuration.decoders
        let context = ImageDecodingContext(format: ImageFormat(sniffing: fetched.data), thumbnail: request.thumbnail,
                                           maxPixelCount: graph.configuration.maxPixelCount,
                                           memoryBudget: graph.configuration.decodeMemoryBudget,
                                           maxAnimationByteCount: graph.configuration.maxAnimationByteCount)
        let contentEncoding = context.format == nil ? Self.contentEncoding(of: fetched.urlResponse) : nil
        // The previews' session makes the final image when it can (its work is then not done
        // twice); when it cannot, the decoder decodes the data as usual and decides any error.
        let session = previewSession
        previewSession = nil
        run(on: graph.decodeQueue, after: fetched.timings, source: fetched.source, urlResponse: fetched.urlResponse,
            originalFormat: context.format, storageErrors: fetched.storageErrors, resumedFromByte: fetched.resumedFromByte) {
            if let session {
                defer { session.close() }
                if let image = session.finish(fetched.data) { return image }
            }
            do {
                return try decoder.decode(fetched.data, context: context)
            } catch ImagePipelineError.decodingFailed(nil, let reason) where contentEncoding != nil {
                // Loaders deliver bodies as sent: an encoding nobody asked for reaches the decoder.
                throw ImagePipelineError.decodingFailed(format: nil, reason: "\(reason); the body is in Content-Encoding "
                    + "'\(contentEncoding ?? "")', which the loader delivers as the server sent it, not decoded")
            } catch let error as ImagePipelineError {
                throw error
            } catch {
                throw ImagePipelineError.decodingFailed(format: context.format, reason: String(describing: error))
            }
        } record: { timings, duration in
            timings.decode += duration
        }
    }

    /// The response's `Content-Encoding` other than `identity`, if any.
    static func contentEncoding(of response: URLResponse?) -> String? {
        guard let value = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Encoding")?
            .trimmingCharacters(in: .whitespaces), !value.isEmpty, value.lowercased() != "identity" else { return nil }
        return value
    }

    private func process(_ input: ImageResult) {
        upstream = nil
        stopPreviews()
        let processor = request.processors[stage - 1]
        run(on: graph.processingQueue, after: input.timings, source: input.source, urlResponse: input.urlResponse,
            originalFormat: input.originalFormat, storageErrors: input.storageErrors, resumedFromByte: input.resumedFromByte) {
            do {
                return try processor.processEveryFrame(input.image)
            } catch let error as ImagePipelineError {
                throw error
            } catch {
                throw ImagePipelineError.processingFailed(identifier: processor.identifier, reason: String(describing: error))
            }
        } record: { timings, duration in
            timings.process += duration
        }
    }

    // MARK: Previews

    /// Decodes a preview from the complete scans received so far, unless the interval since the
    /// last one has not passed or it would take the previews past their budget of bytes: with a
    /// session, which decodes each byte once, the bytes up to the furthest scan previewed; without
    /// one, every preview's bytes from the start.
    private func decodePreview(_ partial: FetchedData) {
        let now = monotonicNow()
        guard now - lastPreviewAt >= graph.configuration.progressiveDecodingInterval else { return }
        let decoder = graph.configuration.decoders
        let context = ImageDecodingContext(format: ImageFormat(sniffing: partial.data), thumbnail: request.thumbnail,
                                           maxPixelCount: graph.configuration.maxPixelCount,
                                           memoryBudget: graph.configuration.decodeMemoryBudget)
        if !askedForPreviewSession {
            askedForPreviewSession = true
            previewSession = decoder.makeProgressiveSession(for: partial.data, context: context)
        }
        let data = partial.data
        let scanEnd = min(partial.scanEnd ?? data.count, data.count)
        let decoded = previewSession == nil ? previewBytes + scanEnd : max(previewBytes, scanEnd)
        let budget = graph.configuration.progressiveDecodingBudget * Double(expectedBytes)
        guard expectedBytes <= 0 || Double(decoded) <= budget else { return }
        let work: @Sendable () -> PlatformImage?
        if let session = previewSession {
            work = { session.preview(data, scanEnd: scanEnd) }
        } else {
            work = { decoder.decodePreview(data.prefix(scanEnd), context: context) }
        }
        if runPreview(on: graph.decodeQueue, work: work) {
            lastPreviewAt = now
            previewBytes = decoded
        }
    }

    /// Frees the previews' session now rather than when the job goes: the request was cancelled,
    /// or failed before the final decode.
    private func closePreviewSession() {
        previewSession?.close()
        previewSession = nil
    }

    /// Runs this stage's processor on the previous stage's preview; a processor that fails on a
    /// preview only loses that preview.
    private func processPreview(_ input: ImageResult) {
        let processor = request.processors[stage - 1]
        let image = UncheckedImage(input.image)
        runPreview(on: graph.processingQueue, work: { try? processor.process(image.value) })
    }

    /// Makes a preview with `work` on `workQueue` and sends it to the subscribers that want
    /// previews; never stored in a cache. Skipped (returns `false`) while another preview is being
    /// made, once the final work has begun, and when final work waits in the queue: a preview must
    /// not delay a final image.
    @discardableResult
    private func runPreview(on workQueue: WorkQueue, work: @escaping @Sendable () -> PlatformImage?) -> Bool {
        guard !isDisposed, previewItem == nil, !finalStarted.current, workQueue.pendingCount == 0 else { return false }
        let finalStarted = self.finalStarted
        previewItem = workQueue.enqueue(priority: priority) { [self] item in
            DispatchQueue.global(qos: .userInitiated).async { [self] in
                let image = item.isCancelled || finalStarted.current ? nil : work().map(UncheckedImage.init)
                item.finish()
                graph.queue.async { [self] in
                    previewItem = nil
                    guard let image, !finalStarted.current else { return }
                    send(preview: ImageResult(image: image.value, urlResponse: nil, source: .network, timings: ImageTimings()))
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

    /// Runs CPU-bound `work` on a bounded queue, off the Swift cooperative pool (a long decode
    /// there would starve every other async task), then stores and delivers the image.
    private func run(on workQueue: WorkQueue, after previous: ImageTimings, source: ImageResponse.Source,
                     urlResponse: URLResponse?, originalFormat: ImageFormat?, storageErrors: [any Error],
                     resumedFromByte: Int? = nil, work: @escaping @Sendable () throws -> PlatformImage,
                     record: @escaping @Sendable (inout ImageTimings, TimeInterval) -> Void) {
        let enqueuedAt = monotonicNow()
        let cache = request.options.contains(.disableMemoryCacheWrites) ? nil : graph.configuration.memoryCache
        let cacheKey = self.cacheKey
        let request = self.request
        let processedStore = self.processedStore
        let storageErrors = storageErrors + diskErrors
        workItem = workQueue.enqueue(priority: priority) { [self] item in
            DispatchQueue.global(qos: .userInitiated).async { [self] in
                guard !item.isCancelled else { item.finish(); return }
                let startedAt = monotonicNow()
                let result = Result { try work() }.map { image -> ImageResult in
                    var timings = previous
                    timings.queued += startedAt - enqueuedAt
                    record(&timings, monotonicNow() - startedAt)
                    cache?.store(image, forKey: cacheKey)
                    processedStore?.storeInBackground(image, originalFormat: originalFormat, urlResponse: urlResponse,
                                                      request: request, cacheKey: cacheKey)
                    return ImageResult(image: image, urlResponse: urlResponse, source: source, timings: timings,
                                       originalFormat: originalFormat, storageErrors: storageErrors,
                                       resumedFromByte: resumedFromByte)
                }
                item.finish()
                graph.queue.async { self.finish(result) }
            }
        }
    }
}
