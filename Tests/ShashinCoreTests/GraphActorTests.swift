import Dispatch
import Testing
@testable import ShashinCore

/// `GraphActor` and the blocks sent to its queue are one isolation: the actor's jobs run on the
/// queue (a serial queue), so `GraphActor.sync`/`async` and `Task { @GraphActor in }` never run
/// at the same time, and `GraphActor.assumeIsolated`'s queue check holds for both.
@Suite("The graph's actor")
struct GraphActorTests {
    @Test func theActorsJobsRunOnTheGraphQueue() async {
        let key = DispatchSpecificKey<Int>()
        GraphActor.queue.setSpecific(key: key, value: 14)
        defer { GraphActor.queue.setSpecific(key: key, value: nil) }
        let onQueue = await Task { @GraphActor in DispatchQueue.getSpecific(key: key) }.value
        #expect(onQueue == 14)
    }
}

