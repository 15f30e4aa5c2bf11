/// Loads images ahead of need — at low priority, a few at a time — into the memory cache, so
/// a view that asks for one later shows it at once.
///
/// Prefetching goes through the pipeline, so it shares work: a view that asks for an image
/// being prefetched joins that download (it is not started twice) and raises its priority.
/// Stopping a prefetch cancels the work unless someone else waits for it.
///
/// ```swift
/// let prefetcher = ImagePrefetcher(pipeline: pipeline)
/// prefetcher.startPrefetching(with: upcoming.map { ImageRequest(url: $0, thumbnail: size) })
/// prefetcher.stopPrefetching(with: gone)          // or stopPrefetching() for everything
/// ```
///
/// Thread-safe: every method may be called from any thread or actor.
public final class ImagePrefetcher: Sendable {
    /// The pipeline the prefetcher loads through.
    public let pipeline: ImagePipeline
    /// The priority prefetches run at unless one is given; default `.low`.
    public let defaultPriority: ImageRequest.Priority
    /// Prefetches running at once; the rest wait, highest priority first. Default 2, so
    /// prefetching never takes every download slot from the images on screen.
    public let maxConcurrentRequests: Int

    private let state = Locked(State())

    private enum Phase {
        case waiting
        /// Counted as running; its task is being made outside the lock.
        case starting
        case running(ImageTask)
    }

    private struct Entry {
        var request: ImageRequest
        /// Unique per entry: tells a restarted prefetch of the same image from the stopped one.
        let order: Int
        var phase: Phase = .waiting
    }

    private struct State {
        var entries: [ImageCacheKey: Entry] = [:]
        var running = 0
        var nextOrder = 0
    }

    private typealias Ready = (key: ImageCacheKey, order: Int, request: ImageRequest)

    /// Creates a prefetcher.
    /// - Parameters:
    ///   - pipeline: where images load (and are cached).
    ///   - priority: what prefetches run at unless one is given; default `.low`.
    ///   - maxConcurrentRequests: prefetches at once; default 2 (at least 1).
    public init(pipeline: ImagePipeline, priority: ImageRequest.Priority = .low, maxConcurrentRequests: Int = 2) {
        self.pipeline = pipeline
        self.defaultPriority = priority
        self.maxConcurrentRequests = max(1, maxConcurrentRequests)
    }

    deinit { stopPrefetching() }

    /// Starts prefetching `requests` (at `priority`, else the prefetcher's default). Images
    /// already in memory are skipped; a request already being prefetched takes the new
    /// priority.
    public func startPrefetching(with requests: [ImageRequest], priority: ImageRequest.Priority? = nil) {
        let priority = priority ?? defaultPriority
        let ready = state.withLock { state -> [Ready] in
            for var request in requests {
                request.priority = priority
                let key = request.cacheKey
                if state.entries[key] != nil {
                    state.entries[key]?.request.priority = priority
                    if case .running(let task)? = state.entries[key]?.phase { task.priority = priority }
                    continue
                }
                guard pipeline.cachedImage(for: request) == nil else { continue }
                state.entries[key] = Entry(request: request, order: state.nextOrder)
                state.nextOrder += 1
            }
            return Self.dequeueReady(&state, limit: maxConcurrentRequests)
        }
        launch(ready)
    }

    /// Stops prefetching `requests`; their work is cancelled unless someone else waits for it.
    public func stopPrefetching(with requests: [ImageRequest]) {
        let (cancelled, ready) = state.withLock { state -> ([ImageTask], [Ready]) in
            var cancelled: [ImageTask] = []
            for request in requests {
                guard let entry = state.entries.removeValue(forKey: request.cacheKey) else { continue }
                switch entry.phase {
                case .waiting: break
                case .starting: state.running -= 1
                case .running(let task): state.running -= 1; cancelled.append(task)
                }
            }
            return (cancelled, Self.dequeueReady(&state, limit: maxConcurrentRequests))
        }
        for task in cancelled { task.cancel() }
        launch(ready)
    }

    /// Stops every prefetch.
    public func stopPrefetching() {
        let cancelled = state.withLock { state -> [ImageTask] in
            let tasks = state.entries.values.compactMap { entry -> ImageTask? in
                if case .running(let task) = entry.phase { return task }
                return nil
            }
            state.entries.removeAll()
            state.running = 0
            return tasks
        }
        for task in cancelled { task.cancel() }
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

    /// Marks the next waiting entries as starting (highest priority, then oldest first) and
    /// returns them; their tasks are made outside the lock.
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
            switch pipeline.loadImage(item.request) {
            case .cached:
                finished(item.key, order: item.order)
            case .inProgress(let task):
                let kept = state.withLock { state -> Bool in
                    guard let entry = state.entries[item.key], entry.order == item.order else { return false } // stopped meanwhile
                    state.entries[item.key]?.phase = .running(task)
                    task.priority = entry.request.priority
                    return true
                }
                guard kept else { task.cancel(); continue }
                Task { [weak self] in
                    _ = try? await task.response
                    self?.finished(item.key, order: item.order)
                }
            }
        }
    }

    /// A prefetch ended (or hit memory as it started): frees its slot unless it was stopped.
    private func finished(_ key: ImageCacheKey, order: Int) {
        let ready = state.withLock { state -> [Ready] in
            guard let entry = state.entries[key], entry.order == order else { return [] }
            state.entries[key] = nil
            state.running -= 1
            return Self.dequeueReady(&state, limit: maxConcurrentRequests)
        }
        launch(ready)
    }
}
