import Foundation

/// What a job reports to those subscribed to it.
enum JobEvent<Value: Sendable>: Sendable {
    case progress(ImageTask.Progress)
    /// A download attempt failed and another follows after a wait.
    case retrying(ImageTask.Retry)
    /// A lower-quality version of the value to come (progressive decoding); never cached.
    case preview(Value)
    case value(Value)
    case failure(any Error)
}

/// A unit of shared work in the pipeline's graph (fetch, decode, one processing step).
///
/// Every identical request subscribes to the same job. The job starts when its first subscriber
/// arrives, runs at the highest priority among its subscribers, and is cancelled when the last
/// one leaves. Subclasses override `start()`, `didCancel()`, `didChangePriority(_:)`,
/// `didChangeProgressInterest(_:)` and `didDispose()`. Previews go only to subscribers that want
/// them, and a subscriber that wants them gets the latest one at once when it joins.
///
/// Isolation: a job is created, used and finished only on `GraphActor`.
@GraphActor
class Job<Value: Sendable>: Subscribable {
    typealias Priority = ImageRequest.Priority
    typealias Handler = @GraphActor (JobEvent<Value>) -> Void

    private struct Subscriber {
        let id: Int
        var priority: Priority
        let wantsProgress: Bool
        let wantsPreviews: Bool
        let handler: Handler
    }

    nonisolated let graph: JobGraph
    /// In the order they subscribed (ids ascending); a job rarely has more than a few.
    private var subscribers: [Subscriber] = []
    private var nextSubscriberID = 0
    private var hasStarted = false
    /// Finished or cancelled: no more events, no new subscribers.
    private(set) var isDisposed = false
    /// How many subscribers the job has now.
    var subscriberCount: Int { subscribers.count }
    /// The highest priority of the current subscribers.
    private(set) var priority: Priority = .veryLow
    /// Whether any current subscriber wants progress events.
    private(set) var wantsProgress = false
    /// Whether any current subscriber wants previews.
    private(set) var wantsPreviews = false
    /// The last preview sent, for subscribers that join later.
    private var latestPreview: Value?

    init(graph: JobGraph) {
        self.graph = graph
    }

    /// Adds a subscriber; starts the job on the first one. The handler may be called before this
    /// returns (a job can finish synchronously, as on a memory-cache hit). Returns `nil` when the
    /// job is already disposed. A subscriber that does not want progress gets none, and a job
    /// none of whose subscribers want it may skip reporting it.
    func subscribe(priority: Priority, wantsProgress: Bool = true, wantsPreviews: Bool = false,
                   handler: @escaping Handler) -> JobSubscription? {
        guard !isDisposed else { return nil }
        let id = nextSubscriberID
        nextSubscriberID += 1
        subscribers.append(Subscriber(id: id, priority: priority, wantsProgress: wantsProgress, wantsPreviews: wantsPreviews,
                                      handler: handler))
        updateProgressInterest()
        self.wantsPreviews = self.wantsPreviews || wantsPreviews
        if wantsPreviews, let latestPreview { handler(.preview(latestPreview)) }
        let subscription = JobSubscription(job: self, id: id)
        if !hasStarted {
            hasStarted = true
            self.priority = priority
            start()
        } else {
            updatePriority()
        }
        return subscription
    }

    // MARK: For subclasses

    /// Begins the work; runs once, on the first subscription.
    func start() {}
    /// Stops the work: the last subscriber left before it finished.
    func didCancel() {}
    /// The highest subscriber priority changed.
    func didChangePriority(_ priority: Priority) {}
    /// Whether any subscriber wants progress changed; called before `start()` for the first one.
    func didChangeProgressInterest(_ wanted: Bool) {}
    /// Called once when the job ends: before its outcome is delivered, or before `didCancel()`.
    /// A job the graph keeps in a map overrides it to call `graph.forget(self)`.
    func didDispose() {}

    /// Sends progress to every subscriber.
    func send(progress: ImageTask.Progress) {
        guard !isDisposed else { return }
        for subscriber in subscribers where subscriber.wantsProgress { subscriber.handler(.progress(progress)) }
    }

    /// Tells every subscriber that a download attempt failed and another follows.
    func send(retry: ImageTask.Retry) {
        guard !isDisposed else { return }
        for subscriber in subscribers { subscriber.handler(.retrying(retry)) }
    }

    /// Sends a preview to every subscriber that wants previews, and keeps it for later ones.
    func send(preview: Value) {
        guard !isDisposed else { return }
        latestPreview = preview
        for subscriber in subscribers where subscriber.wantsPreviews { subscriber.handler(.preview(preview)) }
    }

    /// Delivers the outcome to every subscriber and disposes of the job.
    func finish(_ result: Result<Value, any Error>) {
        guard !isDisposed else { return }
        let handlers = subscribers.map(\.handler)
        dispose()
        let event: JobEvent<Value> = switch result {
        case .success(let value): .value(value)
        case .failure(let error): .failure(error)
        }
        for handler in handlers { handler(event) }
    }

    // MARK: Subscribers

    final func removeSubscriber(_ id: Int) {
        guard !isDisposed, let index = subscribers.firstIndex(where: { $0.id == id }) else { return }
        subscribers.remove(at: index)
        if subscribers.isEmpty {
            dispose()
            didCancel()
        } else {
            updatePriority()
            updateProgressInterest()
            wantsPreviews = subscribers.contains { $0.wantsPreviews }
        }
    }

    final func setPriority(_ priority: Priority, ofSubscriber id: Int) {
        guard !isDisposed, let index = subscribers.firstIndex(where: { $0.id == id }) else { return }
        subscribers[index].priority = priority
        updatePriority()
    }

    private func updatePriority() {
        let newPriority = subscribers.lazy.map(\.priority).max() ?? priority
        guard newPriority != priority else { return }
        priority = newPriority
        didChangePriority(newPriority)
    }

    private func updateProgressInterest() {
        let wanted = subscribers.contains { $0.wantsProgress }
        guard wanted != wantsProgress else { return }
        wantsProgress = wanted
        didChangeProgressInterest(wanted)
    }

    private func dispose() {
        isDisposed = true
        latestPreview = nil
        subscribers.removeAll()
        didDispose()
    }
}

/// What a `JobSubscription` asks of its job, whatever the job's value.
@GraphActor
protocol Subscribable: AnyObject, Sendable {
    /// Removes the subscriber `id`; the job is cancelled when it was the last.
    func removeSubscriber(_ id: Int)
    /// Sets the priority the subscriber `id` asks for.
    func setPriority(_ priority: ImageRequest.Priority, ofSubscriber id: Int)
}

/// A subscriber's handle on a job: leave it, or change the priority it asks for, on `GraphActor`.
/// It holds the job weakly: a handle kept after the job ended (an `ImageTask` the app holds)
/// keeps nothing alive, and then does nothing.
struct JobSubscription: Sendable {
    private weak var job: (any Subscribable)?
    private let id: Int

    init(job: any Subscribable, id: Int) {
        self.job = job
        self.id = id
    }

    @GraphActor func unsubscribe() { job?.removeSubscriber(id) }
    @GraphActor func setPriority(_ priority: ImageRequest.Priority) { job?.setPriority(priority, ofSubscriber: id) }
}
