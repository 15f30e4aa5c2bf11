import Foundation
import Testing
@testable import ShashinCore

/// The two ways a view learns how its load goes: `onStateChange`, and a completion handler given
/// with one request.
@MainActor
@Suite("ImageBinding: state changes and per-request completion")
struct ImageBindingStateTests {
    @Test func stateChangesAreReportedOnceEachFromLoadingToSuccessAndBackToEmpty() async throws {
        let fixture = PipelineFixture()
        let binding = ImageBinding(target: RecordingTarget(), options: .init(pipeline: fixture.pipeline))
        var states: [ImageBinding.State] = []
        binding.onStateChange = { states.append($0) }
        binding.setRequest(PipelineFixture.request("a"))
        #expect(states == [.loading])
        // A new request while one loads stays `.loading`: no change to report.
        binding.setRequest(PipelineFixture.request("b"))
        #expect(states == [.loading])
        try await fixture.loader.waitForPendingCount(1)
        try await fixture.loader.respond(to: PipelineFixture.url("b"), with: PipelineFixture.imageData(fill: 2))
        try await waitUntil { binding.state == .success(.none) }
        #expect(states == [.loading, .success(.none)])
        binding.setRequest(nil)
        #expect(states == [.loading, .success(.none), .empty])
        try await fixture.waitUntilIdle()
    }

    @Test func aFailureAndAMemoryHitAreReportedAsStates() async throws {
        let fixture = PipelineFixture()
        let binding = ImageBinding(target: RecordingTarget(), options: .init(pipeline: fixture.pipeline))
        var states: [ImageBinding.State] = []
        binding.onStateChange = { states.append($0) }
        binding.setRequest(PipelineFixture.request("broken"))
        try await fixture.loader.waitForPendingCount(1)
        try await fixture.loader.fail(PipelineFixture.url("broken"), with: URLError(.notConnectedToInternet))
        try await waitUntil { binding.state == .failure }

        try await warm("cached", in: fixture)
        binding.setRequest(PipelineFixture.request("cached"))
        #expect(states == [.loading, .failure, .success(.memory)])
        try await fixture.waitUntilIdle()
    }

    @Test func aCompletionHandlerIsCalledOnceWithTheImage() async throws {
        let fixture = PipelineFixture()
        let binding = ImageBinding(target: RecordingTarget(), options: .init(pipeline: fixture.pipeline))
        var results: [UInt8] = []
        binding.setRequest(PipelineFixture.request("a")) { result in
            if case .success(let response) = result { results.append(response.image.testBitmap.pixels[0]) }
        }
        try await fixture.loader.waitForPendingCount(1)
        try await fixture.loader.respond(to: PipelineFixture.url("a"), with: PipelineFixture.imageData(fill: 7))
        try await waitUntil { binding.state == .success(.none) }
        #expect(results == [7])
        // The same request again: its handler hears of the shown image at once; the first never again.
        binding.setRequest(PipelineFixture.request("a")) { result in
            if case .success(let response) = result { results.append(response.image.testBitmap.pixels[0] + 100) }
        }
        #expect(results == [7, 107])
        try await fixture.waitUntilIdle()
    }

    @Test func aSupersededRequestsCompletionIsNeverCalled() async throws {
        let fixture = PipelineFixture()
        let binding = ImageBinding(target: RecordingTarget(), options: .init(pipeline: fixture.pipeline))
        var calls: [String] = []
        // Someone else also wants A, so its download really finishes after the view moved on.
        let other = fixture.task(PipelineFixture.request("a"))
        binding.setRequest(PipelineFixture.request("a")) { _ in calls.append("a") }
        try await fixture.loader.waitForPendingCount(1)
        binding.setRequest(PipelineFixture.request("b")) { result in
            calls.append((try? result.get()) == nil ? "b failed" : "b")
        }
        try await fixture.loader.respond(to: PipelineFixture.url("a"), with: PipelineFixture.imageData(fill: 1))
        _ = try await other.image
        await fixture.flushGraph()
        #expect(calls.isEmpty)
        try await fixture.loader.fail(PipelineFixture.url("b"), with: URLError(.timedOut))
        try await waitUntil { binding.state == .failure }
        #expect(calls == ["b failed"])
        // Replaced by a request without a handler, or by none: C's handler is dropped either way.
        binding.setRequest(PipelineFixture.request("c")) { _ in calls.append("c") }
        binding.setRequest(PipelineFixture.request("d"))
        try await fixture.loader.respond(to: PipelineFixture.url("d"), with: PipelineFixture.imageData(fill: 4))
        try await waitUntil { binding.state == .success(.none) }
        binding.setRequest(PipelineFixture.request("e")) { _ in calls.append("e") }
        binding.setRequest(nil)
        try await fixture.waitUntilIdle()
        #expect(calls == ["b failed"])
    }

    @Test func aCancelledLoadKeepsItsCompletionForTheRestart() async throws {
        let fixture = PipelineFixture()
        let binding = ImageBinding(target: RecordingTarget(), options: .init(pipeline: fixture.pipeline))
        var fills: [UInt8] = []
        binding.setRequest(PipelineFixture.request("later")) { fills.append((try? $0.get())?.image.testBitmap.pixels[0] ?? 0) }
        try await fixture.loader.waitForPendingCount(1)
        binding.cancel()
        #expect(binding.state == .deferred)
        try await fixture.waitUntilIdle()
        #expect(fills.isEmpty)
        #expect(binding.startDeferredLoad())
        try await fixture.loader.respond(to: PipelineFixture.url("later"), with: PipelineFixture.imageData(fill: 5))
        try await waitUntil { binding.state == .success(.none) }
        #expect(fills == [5])
        try await fixture.waitUntilIdle()
    }

    @Test func aMemoryHitsCompletionRunsBeforeSetRequestReturns() async throws {
        let fixture = PipelineFixture()
        try await warm("warm", in: fixture)
        let binding = ImageBinding(target: RecordingTarget(), options: .init(pipeline: fixture.pipeline))
        var cacheType: ImageResponse.CacheType?
        binding.setRequest(PipelineFixture.request("warm")) { cacheType = try? $0.get().cacheType }
        #expect(cacheType == .memory)
        try await fixture.waitUntilIdle()
    }

    /// Loads `name` into the fixture's memory cache.
    private func warm(_ name: String, in fixture: PipelineFixture) async throws {
        let task = fixture.task(PipelineFixture.request(name))
        try await fixture.loader.respond(to: PipelineFixture.url(name), with: PipelineFixture.imageData(fill: 3))
        _ = try await task.response
    }
}
