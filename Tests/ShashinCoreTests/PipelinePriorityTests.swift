import Foundation
import Testing
@testable import ShashinCore

@Suite("Priorities")
struct PipelinePriorityTests {
    let imageData = TestImages.encode(width: 1, height: 1, fill: 1)

    /// A fixture with one download slot, taken by a request the test releases when ready.
    func busyFixture() async throws -> (PipelineFixture, ImageTask) {
        let fixture = PipelineFixture { $0.maxConcurrentDownloads = 1 }
        let busy = fixture.task(ImageRequest(url: PipelineFixture.url("busy")))
        try await fixture.loader.waitForPendingCount(1)
        return (fixture, busy)
    }

    func waitUntilQueued(_ fixture: PipelineFixture, _ count: Int) async throws {
        try await eventually { fixture.pipeline.graph.networkQueue.pendingCount == count }
    }

    /// Releases downloads one at a time, in the order they start, and returns that order.
    func drain(_ fixture: PipelineFixture, count: Int) async throws -> [String] {
        var order: [String] = []
        for _ in 0..<count {
            try await fixture.loader.waitForPendingCount(1)
            let url = fixture.loader.pendingURLs[0]
            order.append(url.lastPathComponent)
            try await fixture.loader.respond(to: url, with: imageData)
        }
        return order
    }

    @Test func queuedWorkStartsInPriorityOrder() async throws {
        let (fixture, _) = try await busyFixture()
        let tasks = [("low", ImageRequest.Priority.low), ("high", .high), ("normal", .normal), ("veryHigh", .veryHigh)].map {
            fixture.task(ImageRequest(url: PipelineFixture.url($0.0), priority: $0.1))
        }
        try await waitUntilQueued(fixture, 4)
        let order = try await drain(fixture, count: 5)
        #expect(order == ["busy", "veryHigh", "high", "normal", "low"])
        for task in tasks { _ = try await task.image }
        try await fixture.waitUntilIdle()
    }

    @Test func aHighPriorityRequestJoiningQueuedLowPriorityWorkRaisesIt() async throws {
        let (fixture, _) = try await busyFixture()
        let low = fixture.task(ImageRequest(url: PipelineFixture.url("shared"), priority: .low))
        let normal = fixture.task(ImageRequest(url: PipelineFixture.url("other"), priority: .normal))
        try await waitUntilQueued(fixture, 2)
        let high = fixture.task(ImageRequest(url: PipelineFixture.url("shared"), processors: [CountingProcessor("p")], priority: .high))
        await fixture.flushGraph()
        let order = try await drain(fixture, count: 3)
        #expect(order == ["busy", "shared", "other"])
        for task in [low, normal, high] { _ = try await task.image }
        try await fixture.waitUntilIdle()
    }

    @Test func theLastOfTwoQuickPriorityChangesWins() async throws {
        let (fixture, _) = try await busyFixture()
        let a = fixture.task(ImageRequest(url: PipelineFixture.url("a"), priority: .normal))
        let b = fixture.task(ImageRequest(url: PipelineFixture.url("b"), priority: .normal))
        try await waitUntilQueued(fixture, 2)
        b.priority = .veryHigh
        b.priority = .veryLow
        a.priority = .low
        a.priority = .high
        await fixture.flushGraph()
        let order = try await drain(fixture, count: 3)
        #expect(order == ["busy", "a", "b"])
        for task in [a, b] { _ = try await task.image }
        try await fixture.waitUntilIdle()
    }

    @Test func sharedWorkDropsToTheRemainingSubscribersPriorityWhenTheHighOneLeaves() async throws {
        let (fixture, _) = try await busyFixture()
        let low = fixture.task(ImageRequest(url: PipelineFixture.url("shared"), priority: .low))
        let high = fixture.task(ImageRequest(url: PipelineFixture.url("shared"), priority: .veryHigh))
        let normal = fixture.task(ImageRequest(url: PipelineFixture.url("other"), priority: .normal))
        try await waitUntilQueued(fixture, 2)
        high.cancel()
        await fixture.flushGraph()
        let order = try await drain(fixture, count: 3)
        #expect(order == ["busy", "other", "shared"])
        for task in [low, normal] { _ = try await task.image }
        try await fixture.waitUntilIdle()
    }
}
