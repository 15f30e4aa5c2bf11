import Foundation
import Testing
@testable import ShashinCore

/// Flings whose resting place is known when the finger lifts (`ScrollState.predictedRestingOffset`).
@MainActor
@Suite("VisibleItemsLoader: loading where a fling will land")
struct VisibleItemsLoaderLandingTests {
    static func fling(_ velocity: Double, landing: Double) -> ScrollState {
        ScrollState(phase: .decelerating, velocity: velocity, predictedRestingOffset: landing)
    }

    @Test(arguments: CallOrder.allCases)
    func theLandingRowsLoadAtOnceAtHighPriorityAndTheRowsInBetweenDoNot(order: CallOrder) async throws {
        var policy = VisibleItemsLoader<Int>.Policy()
        policy.prefetchDistance = 2
        policy.landingThreshold = 0 // the whole window at the lift
        let list = ListFixture(count: 300, policy: policy, order: order) { $0.maxConcurrentDownloads = 20 }
        // The finger lifts at the top: the list will rest with row 100 first.
        list.loader.update(visibleItems: [], scroll: Self.fling(150, landing: 100.4))
        list.show(0...3, Self.fling(150, landing: 100.4))
        #expect(list.loader.predictedLandingItems == [100, 101, 102, 103])
        for row in 100...103 { #expect(list.loader.landingPriority(of: row) == .high) }
        #expect(list.loader.prefetchingItems.isEmpty) // not while the list flies fast
        try await list.fixture.loader.waitForPendingCount(4)
        var velocity = 150.0
        for top in stride(from: 4, through: 88, by: 4) {
            velocity *= 0.93
            list.show(top...(top + 3), Self.fling(max(velocity, 13), landing: 100.4))
        }
        await list.fixture.flushGraph()
        #expect(Set(list.fixture.loader.startedURLs.map(ListFixture.row)) == Set(100...103))
        #expect(list.binding(88)?.state == .deferred) // on screen, flying past

        // The list arrives, slowly now: the cells join the downloads already under way.
        list.show(100...103, Self.fling(3, landing: 100.4))
        #expect(list.binding(101)?.priority == .high)
        #expect(list.loader.prefetchingItems.isEmpty) // nothing beyond where the list stops
        try await list.fixture.loader.respond(to: PipelineFixture.url("row-101"), with: PipelineFixture.imageData(fill: 101))
        try await waitUntil { list.binding(101)?.state == .success(.none) }
        #expect(list.starts(of: 101) == 1)
        await list.fixture.flushGraph()
        #expect(list.cancelledRows.isDisjoint(with: 100...105))
        #expect(list.loader.landingItems.isEmpty) // every landing row is a cell's now
        list.loader.stop()
        list.show(100...103, .idle)
    }

    @Test(arguments: CallOrder.allCases)
    func aChangedPredictionCancelsTheRowsNoLongerWantedAndACaughtFlingLoadsWhereItStops(order: CallOrder) async throws {
        var policy = VisibleItemsLoader<Int>.Policy()
        policy.prefetchDistance = 0
        policy.keepDistance = 5
        policy.landingThreshold = 0
        let list = ListFixture(count: 300, policy: policy, order: order) { $0.maxConcurrentDownloads = 20 }
        list.loader.update(visibleItems: [], scroll: Self.fling(120, landing: 60))
        list.show(0...3, Self.fling(120, landing: 60))
        try await list.fixture.loader.waitForPendingCount(4)
        #expect(list.loader.landingItems == Set(60...63))

        // A second flick moves the landing three rows on: 60–62 will not be on screen at rest, and
        // are cancelled at once, though within the keep distance (what arrived stays for resuming).
        list.show(10...13, Self.fling(120, landing: 63))
        #expect(list.loader.landingItems == Set(63...66))
        for row in 63...66 { #expect(list.loader.landingPriority(of: row) == .high) }
        try await waitUntil { list.cancelledRows == Set(60...62) }
        try await list.fixture.loader.waitForPendingCount(4)

        // The finger catches the list at row 20: nothing is predicted any more.
        list.show(20...23, ScrollState(phase: .dragging, velocity: 0))
        #expect(list.loader.landingItems.isEmpty)
        try await waitUntil { list.cancelledRows == Set(60...66) }
        // Where the list really stops loads at high priority.
        for row in 20...23 { #expect(list.binding(row)?.priority == .high) }
        try await waitUntil { Set(list.fixture.loader.pendingURLs.map(ListFixture.row)) == Set(20...23) }
        list.show(20...23, .idle)
        #expect(list.binding(20)?.priority == .high)
        list.loader.stop()
    }

    @Test(arguments: CallOrder.allCases)
    func aFastFlingsLandingLoadsOnlyOnceTheFlingIsWithinTheLeadTimeOfSlowing(order: CallOrder) async throws {
        var policy = VisibleItemsLoader<Int>.Policy()
        policy.prefetchDistance = 0
        policy.landingLeadTime = 1
        policy.landingThreshold = 0
        #expect(policy.fastScrollVelocity == 12)
        let list = ListFixture(count: 300, policy: policy, order: order) { $0.maxConcurrentDownloads = 20 }
        // Lifted at 150 items/s, the list slows below 12/s in τ·ln(150/12) ≈ 1.26 s: beyond the lead.
        list.loader.update(visibleItems: [], scroll: Self.fling(150, landing: 100.4))
        list.show(0...3, Self.fling(150, landing: 100.4))
        #expect(list.loader.predictedLandingItems == [100, 101, 102, 103])
        #expect(list.loader.landingItems.isEmpty)
        // A second flick replaces the prediction before it was due: its rows never start.
        list.show(20...23, Self.fling(150, landing: 130))
        #expect(list.loader.landingItems.isEmpty)
        await list.fixture.flushGraph()
        #expect(list.fixture.loader.startedURLs.isEmpty)
        // Below 12·e^(1 s/τ) ≈ 89 items/s it slows within the lead: the landing loads, long before it ends.
        list.show(40...43, Self.fling(80, landing: 130))
        for row in 130...133 { #expect(list.loader.landingPriority(of: row) == .high) }
        try await list.fixture.loader.waitForPendingCount(4)
        #expect(Set(list.fixture.loader.startedURLs.map(ListFixture.row)) == Set(130...133))
        #expect(list.binding(40)?.state == .deferred) // flying past
        list.loader.stop()
        list.show(40...43, .idle)
    }

    @Test func aRowOnScreenNearTheLandingLoadsDuringTheFling() async throws {
        var policy = VisibleItemsLoader<Int>.Policy()
        policy.prefetchDistance = 0
        policy.landingMargin = 2
        let list = ListFixture(count: 300, policy: policy) { $0.maxConcurrentDownloads = 20 }
        list.show(95...98, Self.fling(40, landing: 100))
        #expect(list.binding(95)?.state == .deferred) // five rows short of the landing
        #expect(list.binding(98)?.state == .loading)  // within two rows of it
        #expect(list.binding(98)?.priority == .high)
        list.loader.stop()
        list.show(95...98, .idle)
    }

    @Test func withoutAPredictionAFastFlingStillStartsNothing() async throws {
        let list = ListFixture(count: 300) { $0.maxConcurrentDownloads = 20 }
        list.show(40...43, ScrollState(phase: .decelerating, velocity: 150))
        await list.fixture.flushGraph()
        #expect(list.loader.predictedLandingItems.isEmpty)
        #expect(list.fixture.pipeline.activeTaskCount == 0)
        // A prediction past either end lands on the screen at that end.
        list.show(40...43, Self.fling(150, landing: 1e300))
        #expect(list.loader.predictedLandingItems == [296, 297, 298, 299])
        list.show(40...43, Self.fling(-150, landing: -.infinity))
        #expect(list.loader.predictedLandingItems.isEmpty) // not finite: ignored
        list.loader.stop()
        // At rest a stale prediction means nothing.
        list.show(40...43, ScrollState(phase: .idle, predictedRestingOffset: 200))
        #expect(list.loader.predictedLandingItems.isEmpty)
        list.loader.stop()
    }

    @Test func aDiskHitFlyingPastLoadsOneAtATimeWhenTheDecodeQueueIsIdle() async throws {
        let disk = InMemoryDataCache()
        var policy = VisibleItemsLoader<Int>.Policy()
        policy.prefetchDistance = 0
        let list = ListFixture(count: 300, policy: policy) { $0.diskCache = disk; $0.maxConcurrentDownloads = 20 }
        for row in [41, 42] {
            try disk.store(PipelineFixture.imageData(fill: UInt8(row)), metadata: nil, forKey: PipelineFixture.url("row-\(row)").absoluteString)
        }
        list.show(40...43, Self.fling(150, landing: 200))
        list.show(40...43, Self.fling(140, landing: 200)) // the next frame: the cells are there now
        #expect(list.binding(40)?.state == .deferred) // not on disk: flies past
        #expect(list.binding(43)?.state == .deferred)
        let started = [41, 42].filter { list.binding($0)?.state == .loading }
        #expect(started.count == 1) // one disk read at a time
        list.loader.stop()
    }

    @Test func secondsUntilTheListSlowsFollowTheDecelerationLaw() {
        let tau = -0.001 / log(0.998)
        #expect(abs(ScrollState(phase: .decelerating, velocity: -150).secondsUntilSpeed(below: 12) - tau * log(12.5)) < 1e-9)
        #expect(ScrollState(phase: .decelerating, velocity: 10).secondsUntilSpeed(below: 12) == 0)
        #expect(ScrollState(phase: .decelerating, velocity: 150).secondsUntilSpeed(below: 0) == 0)
    }

    @Test func predictedRestingOffsetFollowsTheDecelerationLaw() {
        let tau = -0.001 / log(0.998)
        #expect(abs(ScrollState.predictedRestingOffset(releaseOffset: 10, velocity: 100) - (10 + 100 * tau)) < 1e-9)
        #expect(ScrollState.predictedRestingOffset(releaseOffset: 10, velocity: 100, decelerationRate: 1) == 10)
    }
}
