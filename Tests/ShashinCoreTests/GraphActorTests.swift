import Dispatch
import Testing
@testable import ShashinCore

/// `GraphActor`'s jobs, `GraphActor.sync` and `GraphActor.async` are one isolation: each runs
/// holding the actor's lock, so they never run at the same time, and the isolation checks
/// (`GraphActor.assumeIsolated`, the executor's `checkIsolated`) hold for all of them.
@Suite("The graph's actor")
struct GraphActorTests {
    @Test func theActorsJobsRunOnTheGraphQueue() async {
        let key = DispatchSpecificKey<Int>()
        GraphActor.queue.setSpecific(key: key, value: 14)
        defer { GraphActor.queue.setSpecific(key: key, value: nil) }
        let onQueue = await Task { @GraphActor in DispatchQueue.getSpecific(key: key) }.value
        #expect(onQueue == 14)
    }

    @Test func theActorsJobsHoldItsLock() async {
        #expect(!GraphActor.exclusion.isHeldByCurrentThread)
        let held = await Task { @GraphActor in GraphActor.exclusion.isHeldByCurrentThread }.value
        #expect(held)
        #expect(GraphActor.sync { GraphActor.exclusion.isHeldByCurrentThread })
    }

    /// Increments from the actor's jobs, `sync` on many threads and `async` at once all count:
    /// none of them overlaps another (ThreadSanitizer checks the same in `make test-core-tsan`).
    @Test func syncAsyncAndTheActorsJobsExcludeEachOther() async {
        let rounds = 2_000
        GraphActor.sync { Counter.value = 0 }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { for _ in 0..<rounds { await Counter.increment() } }
                group.addTask { for _ in 0..<rounds { GraphActor.sync { Counter.value += 1 } } }
                group.addTask {
                    await withCheckedContinuation { continuation in
                        for round in 0..<rounds {
                            GraphActor.async {
                                Counter.value += 1
                                if round == rounds - 1 { continuation.resume() }
                            }
                        }
                    }
                }
            }
        }
        #expect(GraphActor.sync { Counter.value } == 12 * rounds)
    }
}

@GraphActor
private enum Counter {
    static var value = 0
    static func increment() async { value += 1 }
}
