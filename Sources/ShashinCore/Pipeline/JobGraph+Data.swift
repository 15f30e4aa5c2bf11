import Foundation

extension JobGraph {
    /// Subscribes to the fetch job for `request` until it delivers, or the calling Swift `Task`
    /// is cancelled. Counts as a live task meanwhile.
    ///
    /// The subscription is made with `GraphActor.sync`, on the caller's thread: the graph's work is
    /// short and never waits for the Swift pool, so this waits at most for another thread's
    /// critical section, and wakes no other thread. The job's key is made before taking the
    /// graph's lock, which it does not need.
    func fetchData(for request: ImageRequest) async throws -> FetchedData {
        let waiter = DataWaiter(graph: self)
        let key = keys.fetchKey(for: request)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiter.wait(with: continuation)
                GraphActor.sync { [self] in
                    guard !waiter.isFinished else { return }
                    waiter.subscription = fetchJob(for: request, key: key).subscribeAwaiting(priority: request.priority) { event in
                        switch event {
                        case .progress, .preview, .retrying: break
                        case .value(let fetched): waiter.finish(.success(fetched))
                        case .failure(let error): waiter.finish(.failure(error))
                        }
                    }
                }
            }
        } onCancel: {
            waiter.finish(.failure(CancellationError()))
        }
    }
}

/// One `data(for:)` call waiting on a fetch job.
private final class DataWaiter: Sendable {
    private let graph: JobGraph
    private let state = Locked<(continuation: CheckedContinuation<FetchedData, any Error>?, result: Result<FetchedData, any Error>?)>((nil, nil))
    @GraphActor var subscription: JobSubscription?

    init(graph: JobGraph) {
        self.graph = graph
        graph.taskDidStart()
    }

    var isFinished: Bool { state.withLock { $0.result != nil } }

    func wait(with continuation: CheckedContinuation<FetchedData, any Error>) {
        let result = state.withLock { state -> Result<FetchedData, any Error>? in
            if state.result == nil { state.continuation = continuation }
            return state.result
        }
        if let result { continuation.resume(with: result) }
    }

    func finish(_ result: Result<FetchedData, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<FetchedData, any Error>?? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.continuation = nil }
            return .some(state.continuation)
        }
        guard let continuation else { return }
        graph.taskDidEnd()
        continuation?.resume(with: result)
        if case .failure(let error) = result, error is CancellationError {
            GraphActor.promptly { [self] in subscription?.unsubscribe(); subscription = nil }
        }
    }
}
