import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The original bytes of an image and where they came from. A class: one outcome reaches every
/// subscriber and crosses several hands on the way (the job's result, each handler, a waiter), and
/// each hand-over of a reference is one retain where a struct's copy retained the bytes, the
/// response and the errors each.
final class FetchedData: Sendable {
    let data: Data
    let urlResponse: URLResponse?
    let cacheType: ImageResponse.CacheType
    let timings: ImageTimings
    /// What the disk cache reported on the way (the bytes are good; they may not be stored).
    let storageErrors: [any Error]
    /// Where the download resumed, when it continued kept bytes of an earlier one.
    let resumedFromByte: Int?
    /// For a preview: where the last complete scan's data ends in `data` (which holds the two
    /// bytes of the marker after it too).
    let scanEnd: Int?
    /// Which of the request's sources gave the bytes (`ImageResponse.source`); `nil` for its primary.
    let imageSource: ImageSource?

    init(data: Data, urlResponse: URLResponse?, cacheType: ImageResponse.CacheType, timings: ImageTimings,
         storageErrors: [any Error] = [], resumedFromByte: Int? = nil, scanEnd: Int? = nil, imageSource: ImageSource? = nil) {
        self.imageSource = imageSource
        self.data = data
        self.urlResponse = urlResponse
        self.cacheType = cacheType
        self.timings = timings
        self.storageErrors = storageErrors
        self.resumedFromByte = resumedFromByte
        self.scanEnd = scanEnd
    }
}

/// Gets a URL's bytes once for everyone who asks: from the disk cache when HTTP's rules (and the
/// request's policy) allow it, outside the network queue; otherwise from the network, on the
/// bounded network queue, through the HTTP cache when there is one. Progress crosses to the
/// graph's actor only while a subscriber wants it: `data(for:)` does not, and each crossing costs
/// a thread wake-up per report.
final class FetchDataJob: Job<FetchedData> {
    nonisolated let request: ImageRequest
    /// The graph's key for this job (`JobGraph.fetchKey(for:)`).
    nonisolated let key: String
    var workItem: WorkItem?
    private var preparation: Task<Void, Never>?
    /// For the loader's threads: `wantsProgress`, and the loader's latest progress not yet sent
    /// to the subscribers. Reports cross to the graph with `GraphActor.async` (the loader may call
    /// from under a lock of its own), and the end of the download with `GraphActor.sync`, which
    /// can overtake them: the end sends what is pending first, and a report that arrives later
    /// finds nothing to send.
    private nonisolated let progressState = Locked<(wanted: Bool, pending: ImageTask.Progress?)>((false, nil))
    /// Set while a caller that awaits only this job's bytes subscribes (`subscribeAwaiting`): a
    /// download that subscription starts may begin on the caller's thread.
    private var startsInPlace = false
    /// The attempts made so far and the wait before the next (`FetchDataJob+Retry`).
    var retry = DownloadRetry()
    /// The index of the source being loaded in the request's sources (`FetchDataJob+Sources`),
    /// set on `GraphActor` and read by the download's nonisolated code too.
    nonisolated var sourceIndex: Int {
        get { loadingSource.withLock { $0 } }
        set { loadingSource.withLock { $0 = newValue } }
    }
    private nonisolated let loadingSource = Locked(0)

    init(graph: JobGraph, request: ImageRequest, key: String) {
        self.request = request
        self.key = key
        super.init(graph: graph)
    }

    /// Subscribes a caller that awaits nothing but this job's outcome (`data(for:)`): the
    /// download, if this subscription starts it at once (no request modifier, no disk cache, a
    /// network slot free, other downloads running), may begin on the caller's thread
    /// (`start(_:for:inPlace:)`).
    func subscribeAwaiting(priority: Priority, handler: @escaping Handler) -> JobSubscription? {
        startsInPlace = true
        defer { startsInPlace = false }
        return subscribe(priority: priority, wantsProgress: false, handler: handler)
    }

    override func start() {
        startSource(at: 0)
    }

    /// Loads a URL source: validated, through the request modifier, then planned.
    func start(_ sent: URLRequest) {
        let enqueuedAt = monotonicNow()
        let urlRequest: URLRequest
        do {
            urlRequest = try Self.validated(sent, allowedSchemes: graph.configuration.allowedSchemes)
        } catch {
            fail(error)
            return
        }
        // The Swift pool only to await a request modifier: without one, nothing here suspends.
        guard let modifier = graph.configuration.requestModifier else {
            plan(urlRequest, enqueuedAt: enqueuedAt)
            return
        }
        preparation = prepare(urlRequest, with: modifier, enqueuedAt: enqueuedAt)
    }

    /// Awaits the request modifier on the Swift pool (a `Task` made on the actor would start on
    /// it, one hop more), then plans on `GraphActor`.
    private nonisolated func prepare(_ urlRequest: URLRequest, with modifier: @escaping @Sendable (URLRequest) async throws -> URLRequest,
                                     enqueuedAt: TimeInterval) -> Task<Void, Never> {
        Task { [self] in
            do {
                let modified = try await modifier(urlRequest)
                try Task.checkCancellation()
                GraphActor.async { [self] in plan(modified, enqueuedAt: enqueuedAt) }
            } catch {
                fail(error)
            }
        }
    }

    /// Ends the job with `error` later, on `GraphActor`: `start()` runs inside `subscribe`, which
    /// must return before the job ends.
    private nonisolated func fail(_ error: any Error) {
        let failure = Self.pipelineError(from: error)
        GraphActor.async { self.finish(.failure(failure)) }
    }

    /// Decides, on `GraphActor`, what the request needs, then gets it. Without a disk cache
    /// the answer is a download (or a miss, for a request that may not load), decided here. With
    /// one, the lookup reads SQLite and a file: it runs on a dispatch thread, off the Swift pool
    /// and off the graph's actor, and its answer (a stored response, or a download, conditional
    /// when a stale stored response has a validator) comes back to the actor.
    func plan(_ urlRequest: URLRequest, enqueuedAt: TimeInterval) {
        guard !isDisposed else { return }
        retry.urlRequest = urlRequest
        let maxBytes = graph.configuration.maxResponseBytes
        guard let cache = graph.httpCache else {
            if request.cachePolicy == .returnCacheDataDontLoad {
                fail(ImagePipelineError.cacheMiss)
            } else {
                enqueueDownload(.passThrough(urlRequest, maxBytes: maxBytes), enqueuedAt: enqueuedAt, timings: ImageTimings())
            }
            return
        }
        let policy = request.cachePolicy
        let control = sourceControl
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            let startedAt = monotonicNow()
            let plan = Result { try cache.plan(for: urlRequest, policy: policy, maxBytes: maxBytes, control: control) }
            var timings = ImageTimings()
            timings.disk = monotonicNow() - startedAt
            // On this thread: a dispatch thread never holds the graph's actor, whose work is short.
            GraphActor.sync { [self, timings] in
                guard !isDisposed else { return }
                switch plan {
                case .success(.answered(let answer)):
                    finish(Result { try fetched(from: answer, timings: timings) })
                case .success(let plan):
                    enqueueDownload(plan, enqueuedAt: enqueuedAt, timings: timings)
                case .failure(let error):
                    finish(.failure(Self.pipelineError(from: error)))
                }
            }
        }
    }

    override func didCancel() {
        // Cancelling runs the loader's and the request modifier's cancellation handlers: app code,
        // run once the graph is released.
        let preparation = preparation, workItem = workItem, backoff = retry.backoff
        self.preparation = nil
        self.workItem = nil
        retry.backoff = nil
        GraphActor.afterUnlock {
            preparation?.cancel()
            workItem?.cancel()
            backoff?.cancel()
        }
    }

    /// Ends the job, unless a failure gives way to the request's next source.
    override func finish(_ result: Result<FetchedData, any Error>) {
        guard !isDisposed else { return }
        if case .failure(let error) = result, fallBack(after: error) { return }
        guard sourceIndex > 0 else { return super.finish(result) }
        let source = request.sources[sourceIndex]
        super.finish(result.map { $0.from(source) })
    }

    override func didChangePriority(_ priority: Priority) {
        workItem?.setPriority(priority)
    }

    override func didDispose() {
        graph.forget(self)
    }

    override func didChangeProgressInterest(_ wanted: Bool) {
        progressState.withLock { $0.wanted = wanted }
    }

    private func enqueueDownload(_ plan: HTTPCache.Plan, enqueuedAt: TimeInterval, timings: ImageTimings) {
        guard !isDisposed else { return }
        // Previews come from the body as it arrives, collected only when a subscriber asks for
        // them as the download is queued (one that joins later shares what this download gives).
        let feed = wantsPreviews ? PreviewFeed { [weak self] prefix, scanEnd in
            guard let self else { return }
            let preview = FetchedData(data: prefix, urlResponse: nil, cacheType: .none, timings: ImageTimings(), scanEnd: scanEnd)
            GraphActor.async { self.send(preview: preview) }
        } : nil
        let inPlace = startsInPlace
        let attempt = retry.beginAttempt(policy: retryPolicy)
        workItem = graph.networkQueue.enqueue(priority: priority) { [self] item in
            let run: @Sendable () async -> Void = { [self] in
                await runDownload(plan, item: item, feed: feed, enqueuedAt: enqueuedAt, timings: timings, attempt: attempt)
            }
            // In place only while other downloads run: a lone download wakes no other thread
            // anyway (its caller's thread runs it once the caller waits), and there starting it
            // as a plain task costs less than `Task.immediate`.
            Self.start(run, for: item, inPlace: inPlace && item.startsBesideOthers)
        }
    }

    /// Marks a thread running a download's first steps in place, so that a download started
    /// from inside them goes to the Swift pool instead of nesting deeper.
    private nonisolated static let startingInPlace = ThreadMark()

    /// Starts `run` as a task of its own. Started `inPlace` (by a subscriber that awaits only its
    /// bytes, while other downloads run), by a subscriber that is a Swift task off the main
    /// thread, it begins on the subscriber's thread once the graph is released and
    /// runs there until the loader first waits, so no thread is woken to start it (a subscriber
    /// with a task executor preference runs those first steps on that executor's thread).
    /// Otherwise (a slot freed by a finished download, a dispatch thread, a start nested in such
    /// a first step, an image job's download, no `Task.immediate`) it begins on the Swift pool.
    /// `data(for:)` is a nonisolated async function, so its subscriber is never on the main
    /// thread today; the check keeps it so should that change.
    private nonisolated static func start(_ run: @escaping @Sendable () async -> Void, for item: WorkItem, inPlace: Bool) {
#if compiler(>=6.2) // Task.immediate
        if inPlace, GraphActor.exclusion.isHeldByCurrentThread, !startingInPlace.isSet, !MainThread.isCurrent,
           withUnsafeCurrentTask(body: { $0 != nil }),
           #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
            GraphActor.afterUnlock {
                startingInPlace.set(true)
                let task = Task.immediate(operation: run)
                startingInPlace.set(false)
                item.onCancel { task.cancel() }
            }
            return
        }
#endif
        let task = Task(operation: run)
        item.onCancel { task.cancel() }
    }

    /// Downloads as `plan` says, frees the network slot, and ends the job with the outcome, or,
    /// when the failure is worth it, waits to try again (`retryAfterFailure`).
    private nonisolated func runDownload(_ plan: HTTPCache.Plan, item: WorkItem, feed: PreviewFeed?,
                                         enqueuedAt: TimeInterval, timings: ImageTimings, attempt: Int) async {
        let startedAt = monotonicNow()
        let result: Result<FetchedData, any Error>
        // A refused response is read only to retry: no recorder, and no task-local value to set,
        // on a download without a retry policy.
        let refused = retryPolicy == nil ? nil : RefusedResponse()
        do {
            var timings = timings
            timings.queued = startedAt - enqueuedAt - timings.disk
            let fetched = if let refused {
                try await RefusedResponse.$current.withValue(refused) { try await download(plan, feedingPreviews: feed) }
            } else {
                try await download(plan, feedingPreviews: feed)
            }
            feed?.close()
            timings.network = monotonicNow() - startedAt
            timings.attempts = attempt
            result = .success(fetched.with(timings: timings))
        } catch {
            feed?.close()
            result = .failure(Self.pipelineError(from: error))
        }
        item.finish()
        // On this thread (see `GraphActor`): the result reaches its waiters without a thread hop.
        GraphActor.sync {
            self.sendPendingProgress()
            if case .failure(let error) = result, self.retryAfterFailure(error, refused: refused?.response) { return }
            self.finish(result)
        }
    }

    /// Sends the loader's latest progress, if not sent yet.
    private func sendPendingProgress() {
        let progress = progressState.withLock { state -> ImageTask.Progress? in
            defer { state.pending = nil }
            return state.pending
        }
        if let progress { send(progress: progress) }
    }

    /// `download(plan)`, its body's chunks going to `feed` as they arrive when there is one, and
    /// its redirects kept within the configuration's `allowedSchemes` (`RedirectSchemes`).
    private nonisolated func download(_ plan: HTTPCache.Plan, feedingPreviews feed: PreviewFeed?) async throws -> FetchedData {
        try await RedirectSchemes.download(restrictedTo: graph.redirectRestriction) {
            try await download(plan, observedBy: feed)
        }
    }

    /// `download(plan)`, its body's chunks going to `feed` as they arrive when there is one.
    private nonisolated func download(_ plan: HTTPCache.Plan, observedBy feed: PreviewFeed?) async throws -> FetchedData {
        guard let feed else { return try await download(plan) }
        let sink = BodyObserver.Sink { chunk in feed.receive(chunk) }
        return try await BodyObserver.$sink.withValue(sink) { try await download(plan) }
    }

    private nonisolated func download(_ plan: HTTPCache.Plan) async throws -> FetchedData {
        let progressState = progressState
        let progress: @Sendable (Int64, Int64) -> Void = { [weak self] received, expected in
            let kept = progressState.withLock { state -> Bool in
                guard state.wanted else { return false }
                state.pending = ImageTask.Progress(completed: received, total: expected)
                return true
            }
            guard kept, let self else { return }
            GraphActor.async { self.sendPendingProgress() }
        }
        if let partials = graph.partialBodies, let request = Self.resumableRequest(in: plan),
           let key = resumeKey(sent: request) {
            return try await downloadResuming(plan, request: request, key: key, storage: partials.for(self.request.options),
                                              progress: progress)
        }
        return try await downloadWhole(plan, progress: progress)
    }

    /// Downloads the whole body, as the plan says.
    nonisolated func downloadWhole(_ plan: HTTPCache.Plan, progress: @escaping @Sendable (Int64, Int64) -> Void) async throws -> FetchedData {
        if let cache = graph.httpCache {
            let answer = try await cache.execute(plan, progress: progress)
            try Task.checkCancellation()
            return try fetched(from: answer, timings: ImageTimings())
        }
        guard case .passThrough(let urlRequest, _) = plan else { preconditionFailure("a plan without a cache is a download") }
        let (data, response) = try await graph.dataLoader.loadData(
            for: urlRequest, maxBytes: graph.configuration.maxResponseBytes, progress: progress)
        try Task.checkCancellation()
        if let http = response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
            RetryPolicy.loaderDidRefuse(http)
            throw ImagePipelineError.httpStatus(http.statusCode) // for loaders that do not check
        }
        return try checked(FetchedData(data: data, urlResponse: response, cacheType: .none, timings: ImageTimings()))
    }

    /// An HTTP cache's answer as the pipeline's bytes: a status outside 2xx is an error, even stored.
    private nonisolated func fetched(from answer: HTTPCachedResponse, timings: ImageTimings) throws -> FetchedData {
        guard (200..<300).contains(answer.statusCode) else {
            RetryPolicy.loaderDidRefuse(answer.response)
            throw ImagePipelineError.httpStatus(answer.statusCode)
        }
        let cacheType: ImageResponse.CacheType = switch answer.source {
        case .cache: .disk
        case .revalidated: .revalidated
        case .network: .none
        }
        return try checked(FetchedData(data: answer.data, urlResponse: answer.response, cacheType: cacheType,
                                       timings: timings, storageErrors: answer.storageErrors))
    }

    nonisolated func checked(_ fetched: FetchedData) throws -> FetchedData {
        let limit = graph.configuration.maxResponseBytes
        guard fetched.data.count <= limit else { throw ImagePipelineError.dataTooLarge(limit: limit) }
        guard !fetched.data.isEmpty else { throw ImagePipelineError.emptyData }
        return fetched
    }

    /// Refuses what no loader should be asked for: no URL, a scheme the configuration does not
    /// allow, an HTTP URL without a host.
    nonisolated static func validated(_ request: URLRequest, allowedSchemes: Set<String>) throws -> URLRequest {
        guard let url = request.url, let scheme = url.scheme?.lowercased() else {
            throw ImagePipelineError.invalidURL(request.url?.absoluteString ?? "")
        }
        guard allowedSchemes.contains(scheme) else { throw ImagePipelineError.unsupportedScheme(scheme) }
        if scheme == "http" || scheme == "https", (url.host ?? "").isEmpty {
            throw ImagePipelineError.invalidURL(url.absoluteString)
        }
        return request
    }

    /// The error the caller sees: see `ImagePipelineError.fromLoader`.
    nonisolated static func pipelineError(from error: any Error) -> any Error {
        ImagePipelineError.fromLoader(error)
    }
}

extension FetchedData {
    func with(timings: ImageTimings) -> FetchedData {
        FetchedData(data: data, urlResponse: urlResponse, cacheType: cacheType, timings: timings, storageErrors: storageErrors,
                    resumedFromByte: resumedFromByte, imageSource: imageSource)
    }

    /// These bytes, as given by `imageSource`.
    func from(_ imageSource: ImageSource) -> FetchedData {
        FetchedData(data: data, urlResponse: urlResponse, cacheType: cacheType, timings: timings, storageErrors: storageErrors,
                    resumedFromByte: resumedFromByte, scanEnd: scanEnd, imageSource: imageSource)
    }
}
