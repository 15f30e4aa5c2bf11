import Dispatch

/// Runs `GraphActor`'s jobs one at a time on a serial dispatch queue, so code on the actor and
/// code dispatched to the queue (`GraphActor.sync`, `GraphActor.async`) share one isolation.
/// Linux's Dispatch has no `DispatchSerialQueue` executor; this is the small one it lacks.
final class GraphExecutor: SerialExecutor {
    let queue: DispatchQueue

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    #if canImport(Darwin)
    /// `ExecutorJob` needs macOS 14 / iOS 17; the package supports older systems.
    func enqueue(_ job: UnownedJob) {
        queue.async { job.runSynchronously(on: UnownedSerialExecutor(ordinary: self)) }
    }
    #else
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: UnownedSerialExecutor(ordinary: self)) }
    }
    #endif

    /// The runtime asks this when a check of the actor's isolation runs on a thread it did not
    /// start the actor's job on: any code on the queue is on the actor.
    func checkIsolated() {
        dispatchPrecondition(condition: .onQueue(queue))
    }
}
