import Dispatch

/// Runs `GraphActor`'s jobs one at a time: each on the actor's queue, holding the actor's lock,
/// so the jobs, `GraphActor.sync` and `GraphActor.async` share one isolation.
/// Linux's Dispatch has no `DispatchSerialQueue` executor; this is the small one it needs.
final class GraphExecutor: SerialExecutor {
    #if canImport(Darwin)
    /// `ExecutorJob` needs macOS 14 / iOS 17; the package supports older systems.
    func enqueue(_ job: UnownedJob) {
        run(job)
    }
    #else
    func enqueue(_ job: consuming ExecutorJob) {
        run(UnownedJob(job))
    }
    #endif

    /// Written out: the standard library's default needs macOS 14 / iOS 17, and without this
    /// witness the conformance does not compile for the package's older deployment targets.
    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    private func run(_ job: UnownedJob) {
        GraphActor.queue.async {
            GraphActor.exclusion.run { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
        }
    }

    /// The runtime asks this when a check of the actor's isolation runs on a thread it did not
    /// start the actor's job on: a thread holding the actor's lock is on the actor.
    func checkIsolated() {
        precondition(GraphActor.exclusion.isHeldByCurrentThread, "not on the graph's actor")
    }
}
