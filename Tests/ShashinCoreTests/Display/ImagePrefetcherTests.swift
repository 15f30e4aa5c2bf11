import Foundation
import Testing
@testable import ShashinCore

@MainActor
@Suite("ImagePrefetcher")
struct ImagePrefetcherTests {
    @Test func prefetchingThenDisplayingMakesOneDownloadAndRaisesItsPriority() async throws {
        let fixture = PipelineFixture { $0.maxConcurrentDownloads = 1 }
        let busy = fixture.task(PipelineFixture.request("busy"))
        try await fixture.loader.waitForPendingCount(1)
        let prefetcher = ImagePrefetcher(pipeline: fixture.pipeline)
        let wanted = PipelineFixture.request("wanted")
        let other = fixture.task(PipelineFixture.request("other", priority: .normal))
        prefetcher.startPrefetching(with: [wanted])
        try await waitUntil { fixture.pipeline.graph.networkQueue.pendingCount == 2 }

        // A view asks for the prefetched image: it joins the queued download, at high priority.
        let target = RecordingTarget()
        let binding = ImageBinding(target: target, options: .init(pipeline: fixture.pipeline))
        binding.setRequest(PipelineFixture.request("wanted", priority: .high))
        await fixture.flushGraph()

        try await fixture.loader.respond(to: PipelineFixture.url("busy"), with: PipelineFixture.imageData(fill: 1))
        try await fixture.loader.waitForPendingCount(1)
        #expect(fixture.loader.pendingURLs == [PipelineFixture.url("wanted")]) // ahead of "other" (normal)
        try await fixture.loader.respond(to: PipelineFixture.url("wanted"), with: PipelineFixture.imageData(fill: 2))
        try await fixture.loader.respond(to: PipelineFixture.url("other"), with: PipelineFixture.imageData(fill: 3))
        try await waitUntil { binding.state == .success(.none) && prefetcher.count == 0 }
        #expect(fixture.loader.startedURLs.filter { $0 == PipelineFixture.url("wanted") }.count == 1)
        #expect(target.imagesShown == [2])
        _ = try await busy.image
        _ = try await other.image
        try await fixture.waitUntilIdle()
    }

    @Test func stoppingCancelsWhatNoOneElseWants() async throws {
        let fixture = PipelineFixture()
        let prefetcher = ImagePrefetcher(pipeline: fixture.pipeline, maxConcurrentRequests: 4)
        let alone = PipelineFixture.request("alone"), shared = PipelineFixture.request("shared")
        prefetcher.startPrefetching(with: [alone, shared])
        let viewer = fixture.task(shared)
        try await fixture.loader.waitForPendingCount(2)
        prefetcher.stopPrefetching(with: [alone, shared])
        #expect(prefetcher.count == 0)
        try await waitUntil { fixture.loader.cancelledURLs == [alone.url!] }
        try await fixture.loader.respond(to: shared.url!, with: PipelineFixture.imageData(fill: 7))
        #expect(try await viewer.image.testBitmap.pixels[0] == 7)
        #expect(fixture.loader.cancelledURLs == [alone.url!])
        try await fixture.waitUntilIdle()
    }

    @Test func runsNoMoreThanItsLimitAtOnceAndFillsTheMemoryCache() async throws {
        let fixture = PipelineFixture()
        let prefetcher = ImagePrefetcher(pipeline: fixture.pipeline, maxConcurrentRequests: 2)
        let requests = (0..<5).map { PipelineFixture.request("p\($0)") }
        prefetcher.startPrefetching(with: requests)
        var answered = 0
        while answered < requests.count {
            try await fixture.loader.waitForPendingCount(1)
            await fixture.flushGraph()
            #expect(fixture.loader.pendingURLs.count <= 2)
            #expect(prefetcher.runningCount <= 2)
            try await fixture.loader.respond(to: fixture.loader.pendingURLs[0], with: PipelineFixture.imageData(fill: UInt8(answered)))
            answered += 1
        }
        try await waitUntil { prefetcher.count == 0 }
        #expect(fixture.loader.startCount == 5)
        for request in requests { #expect(fixture.pipeline.cachedImage(for: request) != nil) }
        // Already in memory: nothing to do.
        prefetcher.startPrefetching(with: requests)
        #expect(prefetcher.count == 0)
        try await fixture.waitUntilIdle()
    }

    @Test func stopPrefetchingEverythingCancelsEveryPrefetch() async throws {
        let fixture = PipelineFixture()
        let prefetcher = ImagePrefetcher(pipeline: fixture.pipeline, maxConcurrentRequests: 3)
        prefetcher.startPrefetching(with: (0..<6).map { PipelineFixture.request("s\($0)") })
        try await fixture.loader.waitForPendingCount(3)
        prefetcher.stopPrefetching()
        #expect(prefetcher.count == 0 && prefetcher.runningCount == 0)
        try await waitUntil { fixture.loader.cancelledURLs.count == 3 }
        try await fixture.waitUntilIdle()
        #expect(fixture.loader.startCount == 3)
    }
}
