import Foundation
import Testing
@testable import ShashinCore

@Suite("Cancellation")
struct PipelineCancellationTests {
    let url = PipelineFixture.url("a")
    let imageData = TestImages.encode(width: 2, height: 2, fill: 5)

    @Test func cancellingOneOfTwoSubscribersKeepsTheDownload() async throws {
        let fixture = PipelineFixture()
        let first = fixture.task(ImageRequest(url: url))
        let second = fixture.task(ImageRequest(url: url))
        try await fixture.loader.waitForPendingCount(1)
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.response }
        try await fixture.loader.respond(to: url, with: imageData)
        let response = try await second.response
        #expect(response.cacheType == .none)
        #expect(fixture.loader.cancelledURLs.isEmpty)
        try await fixture.waitUntilIdle()
    }

    @Test func cancellingEverySubscriberCancelsTheDownload() async throws {
        let fixture = PipelineFixture()
        let tasks = [fixture.task(ImageRequest(url: url)), fixture.task(ImageRequest(url: url))]
        try await fixture.loader.waitForPendingCount(1)
        tasks.forEach { $0.cancel() }
        try await eventually { fixture.loader.cancelledURLs == [url] }
        try await fixture.waitUntilIdle()
    }

    @Test func cancellingAQueuedTaskFreesItsSlotAndNeverDownloads() async throws {
        let fixture = PipelineFixture { $0.maxConcurrentDownloads = 1 }
        // Tasks reach the graph asynchronously: let "busy" take the only slot before the others
        // are made, and let both of them be queued before one is cancelled.
        let busy = fixture.task(ImageRequest(url: PipelineFixture.url("busy")))
        try await fixture.loader.waitForPendingCount(1)
        let queued = fixture.task(ImageRequest(url: PipelineFixture.url("queued")))
        let next = fixture.task(ImageRequest(url: PipelineFixture.url("next")))
        try await eventually { fixture.pipeline.graph.networkQueue.pendingCount == 2 }
        queued.cancel()
        try await eventually { fixture.pipeline.graph.networkQueue.pendingCount == 1 }
        try await fixture.loader.respond(to: PipelineFixture.url("busy"), with: imageData)
        try await fixture.loader.respond(to: PipelineFixture.url("next"), with: imageData)
        _ = try await busy.image
        _ = try await next.image
        #expect(fixture.loader.startedURLs == [PipelineFixture.url("busy"), PipelineFixture.url("next")])
        try await fixture.waitUntilIdle()
    }

    @Test func cancellingTheAwaitingSwiftTaskEndsTheTaskWithCancellationError() async throws {
        let fixture = PipelineFixture()
        let waiter = Task { try await fixture.pipeline.response(for: ImageRequest(url: url)) }
        try await fixture.loader.waitForPendingCount(1)
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        try await eventually { fixture.loader.cancelledURLs == [url] }
        try await fixture.waitUntilIdle()
    }

    @Test func cancellingBeforeTheTaskReachesTheGraphStartsNothing() async throws {
        let fixture = PipelineFixture()
        let task = fixture.task(ImageRequest(url: url))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.response }
        #expect(task.isCancelled)
        try await fixture.waitUntilIdle()
        #expect(fixture.loader.startCount == 0)
    }

    @Test func cancellingAfterCompletionChangesNothing() async throws {
        let fixture = PipelineFixture()
        let task = fixture.task(ImageRequest(url: url))
        try await fixture.loader.respond(to: url, with: imageData)
        _ = try await task.response
        task.cancel()
        #expect(!task.isCancelled)
        _ = try await task.response
        try await fixture.waitUntilIdle()
    }

    @Test func cancellingADataLoadCancelsTheDownload() async throws {
        let fixture = PipelineFixture()
        let waiter = Task { try await fixture.pipeline.data(for: ImageRequest(url: url)) }
        try await fixture.loader.waitForPendingCount(1)
        #expect(fixture.pipeline.activeTaskCount == 1)
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        try await eventually { fixture.loader.cancelledURLs == [url] }
        try await fixture.waitUntilIdle()
    }
}
