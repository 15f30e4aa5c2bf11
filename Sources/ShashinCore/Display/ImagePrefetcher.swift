import Foundation

/// Loads images ahead of need — at low priority, a few at a time — so a view that asks for one
/// later shows it at once: decoded into the memory cache, or, with the `.diskCache` destination,
/// downloaded into the disk cache with nothing decoded.
///
/// Prefetching goes through the pipeline, so it shares work: a view that asks for an image
/// being prefetched joins that download (it is not started twice) and raises its priority.
/// Stopping a prefetch cancels the work unless someone else waits for it. For a scrolling list,
/// `VisibleItemsLoader` decides what to prefetch from where a fling will land; use a prefetcher
/// directly for everything else (the next screen, an album about to open).
///
/// ```swift
/// let prefetcher = ImagePrefetcher()                               // ImagePipeline.shared, memory
/// prefetcher.startPrefetching(with: upcomingURLs)
/// prefetcher.stopPrefetching(with: goneURLs)                       // or stopPrefetching() for everything
///
/// let offline = ImagePrefetcher(destination: .diskCache)           // bytes only, nothing decoded
/// offline.startPrefetching(with: albumURLs) { result in
///     print("\(result.completed) downloaded, \(result.skipped) already there, \(result.failed) failed")
/// } progress: { progress in
///     bar.progress = progress.fractionFinished
/// }
/// ```
///
/// Thread-safe: every method may be called from any thread or actor. Keep it alive while it
/// works: releasing it stops its prefetches.
public final class ImagePrefetcher: Sendable {
    /// Where prefetched images go.
    public enum Destination: Sendable, Hashable {
        /// Decoded (at the request's thumbnail size, processed) into the memory cache, and the
        /// original into the disk cache as any load does.
        case memoryCache
        /// The original bytes into the disk cache only, nothing decoded: the pipeline's disk
        /// cache must be set (without one, the bytes are downloaded and dropped).
        case diskCache
    }

    /// How far a batch of prefetches has come (`startPrefetching(with:priority:completion:progress:)`).
    public struct Progress: Sendable, Hashable {
        /// The prefetches the batch asked for.
        public var total: Int
        /// Loaded now (downloaded, or read from the disk cache and decoded).
        public var completed = 0
        /// Already where the destination keeps them (in memory, or on disk) when they came up.
        public var skipped = 0
        /// Failed (an HTTP error, a decoding failure, ...).
        public var failed = 0
        /// Stopped before they finished (`stopPrefetching`, or the prefetcher released).
        public var cancelled = 0

        /// Counts of a batch of `total` prefetches.
        public init(total: Int, completed: Int = 0, skipped: Int = 0, failed: Int = 0, cancelled: Int = 0) {
            self.total = total
            self.completed = completed
            self.skipped = skipped
            self.failed = failed
            self.cancelled = cancelled
        }

        /// Those finished, one way or another.
        public var finished: Int { completed + skipped + failed + cancelled }
        /// `finished / total`, 1 for an empty batch.
        public var fractionFinished: Double { total > 0 ? Double(finished) / Double(total) : 1 }
    }

    /// The pipeline the prefetcher loads through.
    public let pipeline: ImagePipeline
    /// Where prefetched images go; default `.memoryCache`.
    public let destination: Destination
    /// The priority prefetches run at unless one is given; default `.low`.
    public let defaultPriority: ImageRequest.Priority
    /// Prefetches running at once; the rest wait, highest priority first. Default 2, so
    /// prefetching never takes every download slot from the images on screen.
    public let maxConcurrentRequests: Int

    private let state = Locked(State())

    private enum Phase {
        case waiting
        /// Counted as running; its work is being made outside the lock.
        case starting
        case running(Work)
    }

    /// A running prefetch's work: an image task, or a Swift task awaiting the bytes.
    private enum Work {
        case image(ImageTask)
        case data(Task<Void, Never>)

        func cancel() {
            switch self {
            case .image(let task): task.cancel()
            case .data(let task): task.cancel()
            }
        }
    }

    private struct Entry {
        var request: ImageRequest
        /// Unique per entry: tells a restarted prefetch of the same image from the stopped one.
        let order: Int
        var phase: Phase = .waiting
        /// The batches waiting for this prefetch.
        var batches: Set<Int> = []
    }

    /// One `startPrefetching` call's count and callbacks.
    private struct Batch {
        var progress: Progress
        let completion: (@Sendable (Progress) -> Void)?
        let onProgress: (@Sendable (Progress) -> Void)?
    }

    /// How a prefetch ended, for its batches.
    private enum Outcome { case completed, skipped, failed, cancelled }

    private struct State {
        var entries: [ImageCacheKey: Entry] = [:]
        var running = 0
        var nextOrder = 0
        var batches: [Int: Batch] = [:]
        var nextBatch = 0
    }

    private typealias Ready = (key: ImageCacheKey, order: Int, request: ImageRequest)
    /// Callbacks to run once the lock is released: a batch's progress, and its completion when done.
    private typealias Report = () -> Void

    /// Creates a prefetcher.
    /// - Parameters:
    ///   - pipeline: where images load (and are cached); default `ImagePipeline.shared`.
    ///   - destination: the memory cache (default) or the disk cache only.
    ///   - priority: what prefetches run at unless one is given; default `.low`.
    ///   - maxConcurrentRequests: prefetches at once; default 2 (at least 1).
    public init(pipeline: ImagePipeline = .shared, destination: Destination = .memoryCache,
                priority: ImageRequest.Priority = .low, maxConcurrentRequests: Int = 2) {
        self.pipeline = pipeline
        self.destination = destination
        self.defaultPriority = priority
        self.maxConcurrentRequests = max(1, maxConcurrentRequests)
    }

    deinit { stopPrefetching() }

    /// Starts prefetching the images at `urls`; see the `ImageRequest` form.
    public func startPrefetching(with urls: [URL], priority: ImageRequest.Priority? = nil,
                                 completion: (@Sendable (Progress) -> Void)? = nil,
                                 progress: (@Sendable (Progress) -> Void)? = nil) {
        startPrefetching(with: urls.map { ImageRequest(url: $0) }, priority: priority, completion: completion, progress: progress)
    }

    /// Starts prefetching `requests` (at `priority`, else the prefetcher's default). Images
    /// already in memory (for the memory destination) are skipped; a request already being
    /// prefetched takes the new priority and counts in this batch too.
    ///
    /// `progress` is called as each of the batch's prefetches finishes, and `completion` once,
    /// when all have (at once for an empty batch), with the counts; both on a thread of the
    /// pipeline's (hop to the main actor for UI). A batch's stopped prefetches count as cancelled.
    public func startPrefetching(with requests: [ImageRequest], priority: ImageRequest.Priority? = nil,
                                 completion: (@Sendable (Progress) -> Void)? = nil,
                                 progress: (@Sendable (Progress) -> Void)? = nil) {
        let priority = priority ?? defaultPriority
        let tracked = completion != nil || progress != nil
        let (ready, reports) = state.withLock { state -> ([Ready], [Report]) in
            var batchID: Int?
            if tracked {
                batchID = state.nextBatch
                state.batches[state.nextBatch] = Batch(progress: Progress(total: requests.count), completion: completion,
                                                       onProgress: progress)
                state.nextBatch += 1
            }
            var reports: [Report] = []
            for var request in requests {
                request.priority = priority
                let key = request.cacheKey
                if state.entries[key] != nil {
                    state.entries[key]?.request.priority = priority
                    // A key the batch already holds (listed twice) counts as skipped, so that the
                    // batch's count still reaches its total.
                    if let batchID, state.entries[key]?.batches.insert(batchID).inserted == false {
                        reports += Self.record(.skipped, in: [batchID], state: &state)
                    }
                    if case .running(.image(let task))? = state.entries[key]?.phase { task.priority = priority }
                    continue
                }
                if destination == .memoryCache, pipeline.cachedImage(for: request) != nil {
                    if let batchID { reports += Self.record(.skipped, in: [batchID], state: &state) }
                    continue
                }
                state.entries[key] = Entry(request: request, order: state.nextOrder, batches: batchID.map { [$0] } ?? [])
                state.nextOrder += 1
            }
            if let batchID, requests.isEmpty { reports += Self.record(nil, in: [batchID], state: &state) }
            return (Self.dequeueReady(&state, limit: maxConcurrentRequests), reports)
        }
        for report in reports { report() }
        launch(ready)
    }

    /// Stops prefetching the images at `urls`.
    public func stopPrefetching(with urls: [URL]) {
        stopPrefetching(with: urls.map { ImageRequest(url: $0) })
    }

    /// Stops prefetching `requests`; their work is cancelled unless someone else waits for it.
    public func stopPrefetching(with requests: [ImageRequest]) {
        let (cancelled, ready, reports) = state.withLock { state -> ([Work], [Ready], [Report]) in
            var cancelled: [Work] = []
            var reports: [Report] = []
            for request in requests {
                guard let entry = state.entries.removeValue(forKey: request.cacheKey) else { continue }
                switch entry.phase {
                case .waiting: break
                case .starting: state.running -= 1
                case .running(let work): state.running -= 1; cancelled.append(work)
                }
                reports += Self.record(.cancelled, in: entry.batches, state: &state)
            }
            return (cancelled, Self.dequeueReady(&state, limit: maxConcurrentRequests), reports)
        }
        for work in cancelled { work.cancel() }
        for report in reports { report() }
        launch(ready)
    }

    /// Stops every prefetch.
    public func stopPrefetching() {
        let (cancelled, reports) = state.withLock { state -> ([Work], [Report]) in
            var reports: [Report] = []
            let works = state.entries.values.compactMap { entry -> Work? in
                if case .running(let work) = entry.phase { return work }
                return nil
            }
            for entry in state.entries.values { reports += Self.record(.cancelled, in: entry.batches, state: &state) }
            state.entries.removeAll()
            state.running = 0
            return (works, reports)
        }
        for work in cancelled { work.cancel() }
        for report in reports { report() }
    }

    /// Whether `request` is waiting or loading here.
    public func isPrefetching(_ request: ImageRequest) -> Bool {
        state.withLock { $0.entries[request.cacheKey] != nil }
    }

    /// Whether `request` is loading here now (started, not waiting for a slot): work a view that
    /// asks for the same image would join.
    public func isLoading(_ request: ImageRequest) -> Bool {
        state.withLock { state in
            switch state.entries[request.cacheKey]?.phase {
            case .starting?, .running?: true
            case .waiting?, nil: false
            }
        }
    }

    /// Prefetches waiting or loading; 0 when everything asked for is done or stopped.
    public var count: Int { state.withLock { $0.entries.count } }

    /// Prefetches loading now (at most ``maxConcurrentRequests``).
    public var runningCount: Int { state.withLock { $0.running } }

    // MARK: Private

    /// Counts `outcome` (none: nothing, for an empty batch) in each of `batches`, and returns the
    /// callbacks to run outside the lock; a batch that is done is forgotten.
    private static func record(_ outcome: Outcome?, in batches: Set<Int>, state: inout State) -> [Report] {
        var reports: [Report] = []
        for id in batches {
            guard var batch = state.batches[id] else { continue }
            switch outcome {
            case .completed?: batch.progress.completed += 1
            case .skipped?: batch.progress.skipped += 1
            case .failed?: batch.progress.failed += 1
            case .cancelled?: batch.progress.cancelled += 1
            case nil: break
            }
            let progress = batch.progress
            if outcome != nil, let onProgress = batch.onProgress { reports.append { onProgress(progress) } }
            if progress.finished >= progress.total {
                state.batches[id] = nil
                if let completion = batch.completion { reports.append { completion(progress) } }
            } else {
                state.batches[id] = batch
            }
        }
        return reports
    }

    /// Marks the next waiting entries as starting (highest priority, then oldest first) and
    /// returns them; their work is made outside the lock.
    private static func dequeueReady(_ state: inout State, limit: Int) -> [Ready] {
        guard state.running < limit else { return [] }
        let waiting = state.entries.values.filter { if case .waiting = $0.phase { true } else { false } }
            .sorted { ($0.request.priority, -$0.order) > ($1.request.priority, -$1.order) }
        var ready: [Ready] = []
        for entry in waiting.prefix(limit - state.running) {
            let key = entry.request.cacheKey
            state.entries[key]?.phase = .starting
            state.running += 1
            ready.append((key, entry.order, entry.request))
        }
        return ready
    }

    private func launch(_ ready: [Ready]) {
        for item in ready {
            switch destination {
            case .memoryCache: launchImage(item)
            case .diskCache: launchData(item)
            }
        }
    }

    private func launchImage(_ item: Ready) {
        switch pipeline.loadImage(item.request) {
        case .cached:
            finished(item.key, order: item.order, outcome: .skipped)
        case .inProgress(let task):
            guard hold(.image(task), for: item) else { return }
            Task { [weak self] in
                let outcome: Outcome
                do {
                    let response = try await task.response
                    outcome = response.cacheType == .memory ? .skipped : .completed
                } catch {
                    outcome = error is CancellationError ? .cancelled : .failed
                }
                self?.finished(item.key, order: item.order, outcome: outcome)
            }
        }
    }

    /// The bytes alone, through the HTTP cache into the disk cache: answered by the disk, skipped.
    private func launchData(_ item: Ready) {
        let graph = pipeline.graph
        let order = item.order
        let key = item.key
        let request = item.request
        let task = Task { [weak self] in
            let outcome: Outcome
            do {
                let fetched = try await graph.fetchData(for: request)
                outcome = fetched.cacheType == .none ? .completed : .skipped
            } catch {
                outcome = error is CancellationError ? .cancelled : .failed
            }
            self?.finished(key, order: order, outcome: outcome)
        }
        _ = hold(.data(task), for: item)
    }

    /// Records `work` as the running prefetch of `item`; cancels it and returns `false` when the
    /// prefetch was stopped meanwhile.
    private func hold(_ work: Work, for item: Ready) -> Bool {
        let kept = state.withLock { state -> Bool in
            guard let entry = state.entries[item.key], entry.order == item.order else { return false } // stopped meanwhile
            state.entries[item.key]?.phase = .running(work)
            if case .image(let task) = work { task.priority = entry.request.priority }
            return true
        }
        if !kept { work.cancel() }
        return kept
    }

    /// A prefetch ended (or hit memory as it started): frees its slot unless it was stopped, and
    /// counts it in its batches.
    private func finished(_ key: ImageCacheKey, order: Int, outcome: Outcome) {
        let (ready, reports) = state.withLock { state -> ([Ready], [Report]) in
            guard let entry = state.entries[key], entry.order == order else { return ([], []) }
            state.entries[key] = nil
            state.running -= 1
            let reports = Self.record(outcome, in: entry.batches, state: &state)
            return (Self.dequeueReady(&state, limit: maxConcurrentRequests), reports)
        }
        for report in reports { report() }
        launch(ready)
    }
}
