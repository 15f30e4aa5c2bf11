import Foundation
import Testing
@testable import ShashinCore

/// `ImageLoadCallbacks` given with a request: each runs once, in order, and never for a request
/// another one replaced.
@MainActor
@Suite("ImageBinding: per-request callbacks run once, never for a replaced request")
struct ImageLoadCallbacksTests {
    /// Records every callback as a line, in order.
    final class Log {
        var lines: [String] = []
        func callbacks(_ name: String) -> ImageLoadCallbacks {
            ImageLoadCallbacks(
                onStart: { self.lines.append("\(name) start \($0.url!.lastPathComponent)") },
                onProgress: { self.lines.append("\(name) progress \($0.completed)/\($0.total)") },
                onSuccess: { self.lines.append("\(name) success \($0.image.testBitmap.pixels[0]) \($0.cacheType)") },
                onFailure: { _ in self.lines.append("\(name) failure") },
                onCompletion: { self.lines.append("\(name) completion \((try? $0.get()) != nil)") })
        }
    }

    @Test func aDownloadRunsStartProgressSuccessAndCompletionOnceInOrder() async throws {
        let fixture = PipelineFixture()
        let binding = ImageBinding(target: RecordingTarget(), options: .init(pipeline: fixture.pipeline))
        let log = Log()
        binding.setRequest(PipelineFixture.request("a"), callbacks: log.callbacks("A"))
        #expect(log.lines == ["A start a"])
        try await fixture.loader.reportProgress(to: PipelineFixture.url("a"), completed: 10, total: 70)
        try await waitUntil { log.lines.count == 2 }
        try await fixture.loader.respond(to: PipelineFixture.url("a"), with: PipelineFixture.imageData(fill: 7))
        try await waitUntil { binding.state == .success(.none) }
        await fixture.flushGraph()
        // The loader reports half the bytes as it answers; that report may come before the end
        // or be dropped after it, never after success.
        let lines = log.lines.filter { !$0.hasPrefix("A progress") || $0 == "A progress 10/70" }
        #expect(lines == ["A start a", "A progress 10/70", "A success 7 none", "A completion true"])
        #expect(log.lines.last == "A completion true")
        try await fixture.waitUntilIdle()
    }

    @Test func aMemoryHitRunsStartSuccessAndCompletionBeforeSetRequestReturns() async throws {
        let fixture = PipelineFixture()
        let request = PipelineFixture.request("cached")
        fixture.cache.store(TestImages.makeImage(width: 2, height: 2, fill: 9), forKey: request.cacheKey)
        let binding = ImageBinding(target: RecordingTarget(), options: .init(pipeline: fixture.pipeline))
        let log = Log()
        binding.setRequest(request, callbacks: log.callbacks("A"))
        #expect(log.lines == ["A start cached", "A success 9 memory", "A completion true"])
        // The shown request set again with new callbacks: they hear of the shown image at once.
        binding.setRequest(request, callbacks: log.callbacks("B"))
        #expect(log.lines.suffix(3) == ["B start cached", "B success 9 memory", "B completion true"])
    }

    @Test func aReplacedRequestsCallbacksNeverRunAfterTheReplacement() async throws {
        let fixture = PipelineFixture()
        let binding = ImageBinding(target: RecordingTarget(), options: .init(pipeline: fixture.pipeline))
        let log = Log()
        let a = PipelineFixture.request("a"), b = PipelineFixture.request("b")
        let other = fixture.task(a) // keeps A's download going after the binding leaves it
        binding.setRequest(a, callbacks: log.callbacks("A"))
        try await fixture.loader.waitForPendingCount(1)
        binding.setRequest(b, callbacks: log.callbacks("B"))
        try await fixture.loader.reportProgress(to: a.url!, completed: 1, total: 2)
        try await fixture.loader.respond(to: a.url!, with: PipelineFixture.imageData(fill: 1))
        _ = try await other.image
        await fixture.flushGraph()
        try await fixture.loader.respond(to: b.url!, with: PipelineFixture.imageData(fill: 2))
        try await waitUntil { binding.state == .success(.none) }
        #expect(log.lines.filter { $0.hasPrefix("A") } == ["A start a"])
        #expect(log.lines.filter { !$0.hasPrefix("B progress") }
            == ["A start a", "B start b", "B success 2 none", "B completion true"])
        try await fixture.waitUntilIdle()
    }

    @Test func aFailureRunsOnFailureThenCompletion() async throws {
        let fixture = PipelineFixture()
        let binding = ImageBinding(target: RecordingTarget(), options: .init(pipeline: fixture.pipeline))
        let log = Log()
        binding.setRequest(PipelineFixture.request("broken"), callbacks: log.callbacks("A"))
        try await fixture.loader.fail(PipelineFixture.url("broken"), with: URLError(.notConnectedToInternet))
        try await waitUntil { binding.state == .failure }
        #expect(log.lines.filter { !$0.contains("progress") } == ["A start broken", "A failure", "A completion false"])
        try await fixture.waitUntilIdle()
    }

    @Test func aLoadCancelledAndRestartedStartsOnceAndEndsOnce() async throws {
        let fixture = PipelineFixture()
        let binding = ImageBinding(target: RecordingTarget(), options: .init(pipeline: fixture.pipeline))
        let log = Log()
        binding.setRequest(PipelineFixture.request("a"), callbacks: log.callbacks("A"))
        try await fixture.loader.waitForPendingCount(1)
        binding.cancel()
        try await waitUntil { fixture.loader.cancelledURLs.count == 1 }
        await fixture.flushGraph()
        #expect(log.lines == ["A start a"])
        #expect(binding.startDeferredLoad())
        try await fixture.loader.respond(to: PipelineFixture.url("a"), with: PipelineFixture.imageData(fill: 4))
        try await waitUntil { binding.state == .success(.none) }
        #expect(log.lines.filter { !$0.contains("progress") } == ["A start a", "A success 4 none", "A completion true"])
        try await fixture.waitUntilIdle()
    }
}
