import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The pipeline's engine: the shared jobs, keyed so identical work is found and joined, and the
/// bounded queues they run on. The maps of jobs, like the jobs, live on `GraphActor`.
final class JobGraph: Sendable {
    let configuration: ImagePipeline.Configuration
    let networkQueue: WorkQueue
    let decodeQueue: WorkQueue
    let processingQueue: WorkQueue
    /// The configuration's loader, inside an `AuthenticatingDataLoader` when it has credentials.
    let dataLoader: any DataLoading
    /// HTTP caching into the disk cache, when the configuration keeps originals on disk.
    let httpCache: HTTPCache?
    /// Where processed results are read from and written to disk (by `diskCachePolicy`).
    let processedStore: ProcessedImageStore?
    /// Processed results and the images the app stores, encoded and written in the background.
    let diskWrites = DiskWriteQueue()
    /// Where partial bodies are kept for resuming; `nil` when the configuration turns it off.
    let partialBodies: PartialBodyStorage?
    /// What downloads bind for the loader's redirects (`RedirectSchemes.restriction(for:)` of
    /// `allowedSchemes`): `nil` when it allows both `http` and `https`.
    let redirectRestriction: Set<String>?
    /// Every cache and coalescing key of a request (`imageIDRule` applied).
    let keys: CacheKeys
    private let liveTasks = Locked(0)
    private let nextTaskID = Locked(0)

    @GraphActor private var fetchJobs: [String: FetchDataJob] = [:]
    @GraphActor private var imageJobs: [ImageJobKey: ImageJob] = [:]

    init(configuration: ImagePipeline.Configuration) {
        self.configuration = configuration
        keys = CacheKeys(rule: configuration.imageIDRule, animationDelivery: configuration.animationDelivery)
        let dataLoader: any DataLoading = if configuration.credentialProvider != nil || !configuration.credentials.isEmpty {
            AuthenticatingDataLoader(wrapping: configuration.dataLoader, credentials: configuration.credentials,
                                     provider: configuration.credentialProvider)
        } else {
            configuration.dataLoader
        }
        self.dataLoader = dataLoader
        redirectRestriction = RedirectSchemes.restriction(for: configuration.allowedSchemes)
        networkQueue = WorkQueue(name: "network", maxConcurrent: configuration.maxConcurrentDownloads)
        decodeQueue = WorkQueue(name: "decode", maxConcurrent: configuration.maxConcurrentDecodes)
        processingQueue = WorkQueue(name: "processing", maxConcurrent: configuration.maxConcurrentProcessing)
        let networkQueue = self.networkQueue
        // Background refreshes wait for a download slot at the lowest priority, like any download.
        let slot: @Sendable () async -> @Sendable () -> Void = {
            await withCheckedContinuation { (continuation: CheckedContinuation<@Sendable () -> Void, Never>) in
                _ = networkQueue.enqueue(priority: .veryLow) { item in continuation.resume(returning: { item.finish() }) }
            }
        }
        if let disk = configuration.diskCache, configuration.diskCachePolicy.storesOriginals {
            httpCache = HTTPCache(loader: dataLoader, storage: disk, options: configuration.httpCacheOptions,
                                  now: { Date() }, backgroundSlot: slot)
        } else {
            httpCache = nil
        }
        let originalsOnDisk = httpCache?.storage
        partialBodies = configuration.resumableData.map { PartialBodyStorage(memory: $0, disk: originalsOnDisk) }
        if let disk = configuration.diskCache, configuration.diskCachePolicy.storesProcessed, let encoder = configuration.encoder {
            processedStore = ProcessedImageStore(storage: disk, encoder: encoder, decoder: configuration.decoder,
                                                 quality: configuration.encodingQuality, maxPixelCount: configuration.maxPixelCount,
                                                 memoryBudget: configuration.decodeMemoryBudget,
                                                 maxAnimationByteCount: configuration.maxAnimationByteCount,
                                                 loader: dataLoader, options: configuration.httpCacheOptions, writes: diskWrites)
        } else {
            processedStore = nil
        }
    }

    // MARK: Tasks

    var activeTaskCount: Int { liveTasks.current }

    func makeTask(for request: ImageRequest) -> ImageTask {
        let id = nextTaskID.withLock { id -> Int in id += 1; return id }
        let task = ImageTask(id: id, request: request, graph: self)
        taskDidStart()
        observe(task)
        // On the caller's thread, as taking a lock: no thread is woken to start the task, and a
        // cancellation or priority the caller sends next finds it started. The task may end before
        // this returns (its image found in the memory cache); its result waits for it.
        GraphActor.promptly { [self] in start(task) }
        return task
    }

    func taskDidStart() { liveTasks.withLock { $0 += 1 } }
    func taskDidEnd() { liveTasks.withLock { $0 -= 1 } }

    @GraphActor private func start(_ task: ImageTask) {
        guard !task.isFinished else { return } // cancelled before it reached the queue
        task.didStart()
        guard let lowData = task.request.lowDataImage else { return load(task.request, for: task) }
        startWithLowData(lowData, for: task)
    }

    /// Subscribes `task` to the job making `request`'s image (the task's own request, or one
    /// standing in for it: `JobGraph+LowData`) and ends the task with what the job delivers.
    /// `lowData`, when given, is what the image is: the response says so. `onFailure`, when
    /// given, may take a failure over (start other work for the task) instead of ending it.
    @GraphActor func load(_ request: ImageRequest, for task: ImageTask, lowData: LowDataImage? = nil,
                          onFailure: (@GraphActor (any Error) -> Bool)? = nil) {
        let job = imageJob(for: request, stage: request.processors.count, key: keys.imageKey(for: request))
        // The job holds the task until it delivers, so a task whose handle was dropped still ends
        // (and still fills the cache).
        let wantsPreviews = request.isProgressiveDecodingEnabled ?? configuration.isProgressiveDecodingEnabled
        task.subscription = job.subscribe(priority: task.priority, wantsPreviews: wantsPreviews) { event in
            switch event {
            case .progress(let progress): task.didProgress(progress)
            case .retrying(let retry): task.didRetry(retry)
            case .preview(let result):
                task.didPreview(ImageResponse(image: result.image, request: task.request, cacheType: result.cacheType,
                                              isPreview: true, source: lowData?.source ?? result.imageSource,
                                              isLowData: lowData != nil))
            case .value(let result):
                for error in result.storageErrors { task.didFailStoring(error) }
                task.finish(.success(ImageResponse(image: result.image, request: task.request, cacheType: result.cacheType,
                                                   urlResponse: result.urlResponse, timings: result.timings,
                                                   resumedFromByte: result.resumedFromByte,
                                                   source: lowData?.source ?? result.imageSource,
                                                   isLowData: lowData != nil)))
            case .failure(let error):
                if let onFailure, !task.isFinished, onFailure(error) { return }
                task.finish(.failure(error))
            }
        }
    }

    // MARK: Jobs

    @GraphActor func fetchJob(for request: ImageRequest) -> FetchDataJob {
        fetchJob(for: request, key: keys.fetchKey(for: request))
    }

    /// The fetch job for `request`, whose `fetchKey(for:)` is `key`.
    @GraphActor func fetchJob(for request: ImageRequest, key: String) -> FetchDataJob {
        // A job that has ended is replaced, even if it were still in the map.
        if let job = fetchJobs[key], !job.isDisposed { return job }
        let job = FetchDataJob(graph: self, request: request, key: key)
        fetchJobs[key] = job
        return job
    }

    /// Forgets `job`, which has ended, unless another job has taken its key since.
    @GraphActor func forget(_ job: FetchDataJob) {
        if fetchJobs[job.key] === job { fetchJobs[job.key] = nil }
    }

    /// The coalescing key of `request` in a pipeline without an `imageIDRule` (`CacheKeys.fetchKey`).
    static func fetchKey(for request: ImageRequest) -> String {
        CacheKeys(rule: nil).fetchKey(for: request)
    }

    /// The job producing `request`'s image after its first `stage` processors: the decoded image
    /// at stage 0, processor `stage` applied to the stage below after.
    @GraphActor func imageJob(for request: ImageRequest, stage: Int, key imageKey: ImageCacheKey) -> ImageJob {
        let key = ImageJobKey(request: request, imageKey: imageKey, stage: stage, fetchKey: keys.fetchKey(for: request))
        if let job = imageJobs[key], !job.isDisposed { return job }
        let job: ImageJob = if stage == 0 {
            DecodedImageJob(graph: self, request: request, stage: stage, key: key)
        } else {
            ProcessedImageJob(graph: self, request: request, stage: stage, key: key)
        }
        imageJobs[key] = job
        return job
    }

    /// Forgets `job`, which has ended, unless another job has taken its key since.
    @GraphActor func forget(_ job: ImageJob) {
        if imageJobs[job.key] === job { imageJobs[job.key] = nil }
    }

    /// Jobs alive in the graph, for tests: 0 when nothing is in flight.
    var jobCount: Int {
        GraphActor.sync { fetchJobs.count + imageJobs.count }
    }

    /// Subscribers of the fetch job for `request`, for tests: 0 when there is no such job.
    func fetchSubscriberCount(for request: ImageRequest) -> Int {
        let key = keys.fetchKey(for: request)
        return GraphActor.sync { fetchJobs[key]?.subscriberCount ?? 0 }
    }
}

/// Identifies an image job: the cache key of its output, and the cache options that change how it
/// runs (a job that may not read the cache must not be shared with one that may).
struct ImageJobKey: Hashable {
    let cacheKey: ImageCacheKey
    let options: ImageRequest.Options
    /// What the download under this job sends: requests with other headers get their own.
    let fetchKey: String

    /// - Parameters:
    ///   - imageKey: the key of the request's final image (`CacheKeys.imageKey`).
    ///   - fetchKey: the key of its download (`CacheKeys.fetchKey`).
    init(request: ImageRequest, imageKey: ImageCacheKey, stage: Int, fetchKey: String) {
        cacheKey = ImageCacheKey(url: imageKey.url, thumbnail: imageKey.thumbnail, processors: Array(imageKey.processors.prefix(stage)),
                                 animationDelivery: imageKey.animationDelivery)
        options = request.options
        self.fetchKey = fetchKey
    }
}
