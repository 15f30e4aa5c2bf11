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
            upstream = graph.fetchJob(for: request).subscribe(priority: priority) { [weak self] event in
                switch event {
                case .progress(let progress): self?.send(progress: progress)
                case .value(let fetched): self?.decode(fetched)
                case .failure(let error): self?.finish(.failure(error))
                }
            }
        } else {
            upstream = graph.imageJob(for: request, stage: stage - 1).subscribe(priority: priority) { [weak self] event in
                switch event {
                case .progress(let progress): self?.send(progress: progress)
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
        let decoder = graph.configuration.decoders
        let context = ImageDecodingContext(format: ImageFormat(sniffing: fetched.data), thumbnail: request.thumbnail,
                                           maxPixelCount: graph.configuration.maxPixelCount,
                                           memoryBudget: graph.configuration.decodeMemoryBudget,
                                           maxAnimationByteCount: graph.configuration.maxAnimationByteCount)
        let contentEncoding = context.format == nil ? Self.contentEncoding(of: fetched.urlResponse) : nil
        run(on: graph.decodeQueue, after: fetched.timings, source: fetched.source, urlResponse: fetched.urlResponse,
            originalFormat: context.format, storageErrors: fetched.storageErrors) {
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
        let processor = request.processors[stage - 1]
        run(on: graph.processingQueue, after: input.timings, source: input.source, urlResponse: input.urlResponse,
            originalFormat: input.originalFormat, storageErrors: input.storageErrors) {
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

    /// Runs CPU-bound `work` on a bounded queue, off the Swift cooperative pool (a long decode
    /// there would starve every other async task), then stores and delivers the image.
    private func run(on workQueue: WorkQueue, after previous: ImageTimings, source: ImageResponse.Source,
                     urlResponse: URLResponse?, originalFormat: ImageFormat?, storageErrors: [any Error],
                     work: @escaping @Sendable () throws -> PlatformImage,
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
                                       originalFormat: originalFormat, storageErrors: storageErrors)
                }
                item.finish()
                graph.queue.async { self.finish(result) }
            }
        }
    }
}
