import Foundation

/// One request for one image, in flight. Await `response` (or `image`), watch `progress` and
/// `events`, change `priority` while it waits, or `cancel()` it.
///
/// ```swift
/// if case .inProgress(let task) = pipeline.loadImage(request) {
///     task.priority = .high
///     let image = try await task.image      // CancellationError if cancelled
/// }
/// ```
///
/// Cancelling the task, or the Swift `Task` awaiting it, ends it with `CancellationError`; work
/// shared with other tasks goes on for them.
public final class ImageTask: Sendable, Hashable, CustomStringConvertible {
    /// A number unique within the process.
    public let id: Int
    /// The request this task loads.
    public let request: ImageRequest

    private let graph: JobGraph
    private let state: Locked<State>
    private let createdAt = monotonicNow()
    /// The task's hold on the job graph.
    @GraphActor var subscription: JobSubscription?

    private struct State {
        var priority: ImageRequest.Priority
        var result: Result<ImageResponse, any Error>?
        var waiters: [CheckedContinuation<ImageResponse, any Error>] = []
        var hasStarted = false
        var lastProgress: Progress?
        var retries: [Retry] = []
        var lastPreview: ImageResponse?
        var eventStreams: [Int: AsyncStream<Event>.Continuation] = [:]
        var nextStreamID = 0
    }

    init(id: Int, request: ImageRequest, graph: JobGraph) {
        self.id = id
        self.request = request
        self.graph = graph
        self.state = Locked(State(priority: request.priority))
    }

    // MARK: Public

    /// How soon the task's work runs. Setting it while queued moves the work (and work shared
    /// with other tasks runs at the highest priority of all who wait for it).
    public var priority: ImageRequest.Priority {
        get { state.withLock { $0.priority } }
        set {
            let changed = state.withLock { state -> Bool in
                guard state.result == nil, state.priority != newValue else { return false }
                state.priority = newValue
                return true
            }
            guard changed else { return }
            // Read the priority when the change reaches the graph: of two setters racing, the one
            // the task holds last is the one the job gets.
            GraphActor.promptly { [self] in subscription?.setPriority(priority) }
        }
    }

    /// Stops waiting for the image. The task ends with `CancellationError` at once; shared work
    /// is cancelled only when no other task waits for it.
    public func cancel() {
        guard finish(.failure(CancellationError())) else { return }
        GraphActor.promptly { [self] in
            subscription?.unsubscribe()
            subscription = nil
        }
    }

    /// Whether the task was cancelled.
    public var isCancelled: Bool {
        state.withLock { state in
            if case .failure(let error)? = state.result { return error is CancellationError }
            return false
        }
    }

    /// Whether the task has ended (with an image, an error or cancellation).
    public var isFinished: Bool { state.withLock { $0.result != nil } }

    /// The response, once loaded. Throws `ImagePipelineError`, or `CancellationError` when the
    /// task or the awaiting Swift `Task` is cancelled.
    public var response: ImageResponse {
        get async throws {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let result = state.withLock { state -> Result<ImageResponse, any Error>? in
                        if state.result == nil { state.waiters.append(continuation) }
                        return state.result
                    }
                    if let result { continuation.resume(with: result) }
                }
            } onCancel: {
                cancel()
            }
        }
    }

    /// The image, once loaded; see `response`. Runs on the caller's actor, so the image needs
    /// no `Sendable` conformance to reach it (`NSImage` has one only from macOS 14).
    public nonisolated(nonsending) var image: PlatformImage {
        get async throws { try await response.image }
    }

    /// Download progress in bytes, ending when the task ends.
    public var progress: AsyncStream<Progress> {
        let events = self.events
        return AsyncStream { continuation in
            let forwarder = Task {
                for await event in events { if case .progress(let progress) = event { continuation.yield(progress) } }
                continuation.finish()
            }
            continuation.onTermination = { _ in forwarder.cancel() }
        }
    }

    /// Previews of the image while it downloads (`isPreview == true`), each closer to the final
    /// image than the one before, ending when the task ends; the final image comes through
    /// `response`, never here. A new stream first gets the latest preview, if any. Only requests
    /// with progressive decoding on (`ImageRequest.isProgressiveDecodingEnabled`, or the
    /// pipeline's `isProgressiveDecodingEnabled`) get previews, and only from progressive JPEGs.
    ///
    /// ```swift
    /// for await preview in task.previews { imageView.image = preview.image }
    /// ```
    public var previews: AsyncStream<ImageResponse> {
        let events = self.events
        return AsyncStream { continuation in
            let forwarder = Task {
                for await event in events { if case .preview(let preview) = event { continuation.yield(preview) } }
                continuation.finish()
            }
            continuation.onTermination = { _ in forwarder.cancel() }
        }
    }

    /// What happens to the task: `started`, `progress` and `preview`s, then `finished` with the
    /// result, with `retrying` before each retried attempt. A new stream first replays what
    /// already happened (started, the retries, the latest progress, the latest preview while the
    /// task runs, the end).
    public var events: AsyncStream<Event> {
        AsyncStream { continuation in
            // The replay is yielded under the lock, so no event the graph sends meanwhile (from
            // another thread) overtakes it; yielding only buffers, it never calls back into the task.
            let (isDone, streamID) = state.withLock { state -> (Bool, Int?) in
                if state.hasStarted { continuation.yield(.started) }
                for retry in state.retries { continuation.yield(.retrying(retry)) }
                if let progress = state.lastProgress { continuation.yield(.progress(progress)) }
                if state.result == nil, let preview = state.lastPreview { continuation.yield(.preview(preview)) }
                if let result = state.result {
                    continuation.yield(.finished(result))
                    return (true, nil)
                }
                let id = state.nextStreamID
                state.nextStreamID += 1
                state.eventStreams[id] = continuation
                return (false, id)
            }
            if isDone {
                continuation.finish()
            } else if let streamID {
                continuation.onTermination = { [weak self] _ in
                    self?.state.withLock { _ = $0.eventStreams.removeValue(forKey: streamID) }
                }
            }
        }
    }

    /// Bytes received so far, and the expected total when the server announced it.
    public struct Progress: Sendable, Hashable {
        /// Bytes received.
        public var completed: Int64
        /// Bytes expected; 0 when unknown.
        public var total: Int64
        /// `completed / total`, or 0 when the total is unknown.
        public var fraction: Double { total > 0 ? min(1, Double(completed) / Double(total)) : 0 }
        /// Creates a progress value.
        public init(completed: Int64, total: Int64) { self.completed = completed; self.total = total }
    }

    /// Something that happened to a task.
    public enum Event: Sendable {
        /// The task joined the pipeline's work.
        case started
        /// More bytes arrived.
        case progress(Progress)
        /// A download attempt failed for a passing reason and is tried again after a wait
        /// (`RetryPolicy`): which attempt comes, why, and how long the wait is. Progress after it
        /// counts the new attempt's bytes (from the kept ones when it resumes).
        case retrying(Retry)
        /// A preview of the image decoded from the bytes so far (progressive decoding);
        /// `isPreview` is `true`. Never cached.
        case preview(ImageResponse)
        /// The disk cache failed (a full disk, a read-only folder); the image still loads.
        case diskCacheFailed(any Error)
        /// The task ended: the response (with its `source` and `timings`) or the error.
        case finished(Result<ImageResponse, any Error>)
    }

    public static func == (lhs: ImageTask, rhs: ImageTask) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    /// `ImageTask(id) url`, for logs.
    public var description: String { "ImageTask(\(id)) \(request)" }

    // MARK: Called by the graph

    func didStart() { broadcast(.started) { $0.hasStarted = true } }

    func didProgress(_ progress: Progress) { broadcast(.progress(progress)) { $0.lastProgress = progress } }

    func didPreview(_ preview: ImageResponse) { broadcast(.preview(preview)) { $0.lastPreview = preview } }

    func didRetry(_ retry: Retry) { broadcast(.retrying(retry)) { $0.retries.append(retry) } }

    func didFailStoring(_ error: any Error) { broadcast(.diskCacheFailed(error)) { _ in } }

    /// Ends the task once; returns whether this call ended it.
    @discardableResult
    func finish(_ result: Result<ImageResponse, any Error>) -> Bool {
        let result = result.map { response in
            var timings = response.timings
            timings.total = monotonicNow() - createdAt
            return ImageResponse(image: response.image, request: request, cacheType: response.cacheType,
                                 urlResponse: response.urlResponse, isPreview: response.isPreview, timings: timings,
                                 resumedFromByte: response.resumedFromByte, source: response.source,
                                 isLowData: response.isLowData)
        }
        let delivery = state.withLock { state -> ([CheckedContinuation<ImageResponse, any Error>], [AsyncStream<Event>.Continuation])? in
            guard state.result == nil else { return nil }
            state.result = result
            state.lastPreview = nil
            defer { state.waiters = []; state.eventStreams = [:] }
            // Yielded in the same critical section as every other event, so it stays the last.
            for stream in state.eventStreams.values { stream.yield(.finished(result)) }
            return (state.waiters, Array(state.eventStreams.values))
        }
        guard let (waiters, streams) = delivery else { return false }
        // The count drops before anyone resumes, so a caller that awaited the task sees it at 0.
        graph.taskDidEnd()
        for waiter in waiters { waiter.resume(with: result) }
        // Outside the lock: finishing runs the stream's termination handler, which takes it.
        for stream in streams { stream.finish() }
        return true
    }

    /// Sends `event` to every stream in the critical section that records it, so streams see
    /// events in the order the task recorded them, and a stream's replay is never overtaken.
    private func broadcast(_ event: Event, _ update: (inout State) -> Void) {
        state.withLock { state in
            guard state.result == nil else { return }
            update(&state)
            for stream in state.eventStreams.values { stream.yield(event) }
        }
    }
}
