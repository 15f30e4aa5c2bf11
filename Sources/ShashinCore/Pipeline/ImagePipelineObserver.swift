/// Hears what happens to every task of a pipeline, in one place: for logging, metrics and
/// tracing (Nuke's pipeline delegate). Set one as `ImagePipeline.Configuration.observer`.
///
/// Each task's events arrive in order, the same as its `events` stream gives them (started,
/// progress, retries, previews, then finished with the response or the error), on a Swift task
/// of the observer's own, off the pipeline's path: an observer that is slow delays only itself.
/// Memory-cache hits answered synchronously by `loadImage` make no task and are not observed.
///
/// ```swift
/// struct Metrics: ImagePipelineObserver {
///     func imageTask(_ task: ImageTask, didReceive event: ImageTask.Event) {
///         if case .finished(.success(let response)) = event {
///             record(response.timings.total, cacheType: response.cacheType)
///         }
///     }
/// }
/// configuration.observer = Metrics()
/// ```
public protocol ImagePipelineObserver: Sendable {
    /// `task` was made, before any of its events: the request it loads is `task.request`.
    /// Called on the thread that started the load. Does nothing by default.
    func imageTaskCreated(_ task: ImageTask)
    /// `event` happened to `task`.
    func imageTask(_ task: ImageTask, didReceive event: ImageTask.Event)
}

extension ImagePipelineObserver {
    /// Does nothing.
    public func imageTaskCreated(_ task: ImageTask) {}
}

extension JobGraph {
    /// Hands `task` and every event of it to the configuration's observer, if any: the events
    /// through the task's own stream (which replays what happened before it was read), so they
    /// keep their order and the observer runs outside the task's lock.
    func observe(_ task: ImageTask) {
        guard let observer = configuration.observer else { return }
        observer.imageTaskCreated(task)
        let events = task.events
        Task {
            for await event in events { observer.imageTask(task, didReceive: event) }
        }
    }
}
