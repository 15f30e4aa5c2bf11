import Foundation
import Testing
@testable import ShashinCore

/// What a load does while its view is off screen: cancel, lower its priority, or keep loading.
@MainActor
@Suite("ImageBinding: disappear behaviour")
struct ImageBindingDisappearTests {
    @Test func cancelStopsTheDownloadAndAppearLoadsItAgain() async throws {
        let fixture = PipelineFixture()
        let target = RecordingTarget()
        let binding = ImageBinding(target: target, options: .init(pipeline: fixture.pipeline))
        let request = PipelineFixture.request("a")
        binding.setRequest(request)
        try await fixture.loader.waitForPendingCount(1)
        binding.disappear(.cancel)
        #expect(binding.state == .deferred)
        try await waitUntil { fixture.loader.cancelledURLs == [request.url!] }
        binding.appear()
        #expect(binding.state == .loading)
        try await fixture.loader.respond(to: request.url!, with: PipelineFixture.imageData(fill: 5))
        try await waitUntil { binding.state == .success(.none) }
        #expect(fixture.loader.startCount == 2)
        #expect(target.imagesShown == [5])
        try await fixture.waitUntilIdle()
    }

    @Test func lowerPriorityGoesOnAtTheLowerPriorityAndAppearRestoresIt() async throws {
        let fixture = PipelineFixture()
        let binding = ImageBinding(target: RecordingTarget(), options: .init(pipeline: fixture.pipeline))
        let request = PipelineFixture.request("a", priority: .high)
        binding.setRequest(request)
        try await fixture.loader.waitForPendingCount(1)
        binding.disappear(.lowerPriority(to: .veryLow))
        #expect(binding.priority == .veryLow)
        #expect(binding.state == .loading)
        // Disappearing twice keeps the first priority to restore.
        binding.disappear(.lowerPriority(to: .low))
        #expect(binding.priority == .veryLow)
        binding.appear()
        #expect(binding.priority == .high)
        await fixture.flushGraph()
        #expect(fixture.loader.cancelledURLs.isEmpty)
        try await fixture.loader.respond(to: request.url!, with: PipelineFixture.imageData(fill: 5))
        try await waitUntil { binding.state == .success(.none) }
        #expect(fixture.loader.startCount == 1)
        try await fixture.waitUntilIdle()
    }

    @Test func aLowerPriorityThatIsNotLowerChangesNothing() async throws {
        let fixture = PipelineFixture()
        let binding = ImageBinding(target: RecordingTarget(), options: .init(pipeline: fixture.pipeline))
        binding.setRequest(PipelineFixture.request("a", priority: .low))
        binding.disappear(.lowerPriority(to: .normal))
        #expect(binding.priority == .low)
        binding.appear()
        #expect(binding.priority == .low)
        binding.setRequest(nil)
        try await fixture.waitUntilIdle()
    }

    @Test func keepLoadingLeavesTheLoadAlone() async throws {
        let fixture = PipelineFixture()
        let binding = ImageBinding(target: RecordingTarget(), options: .init(pipeline: fixture.pipeline))
        let request = PipelineFixture.request("a")
        binding.setRequest(request)
        try await fixture.loader.waitForPendingCount(1)
        binding.disappear(.keepLoading)
        #expect(binding.state == .loading)
        #expect(binding.priority == .normal)
        try await fixture.loader.respond(to: request.url!, with: PipelineFixture.imageData(fill: 5))
        try await waitUntil { binding.state == .success(.none) }
        binding.appear()
        #expect(binding.state == .success(.none))
        #expect(fixture.loader.startCount == 1)
        #expect(fixture.loader.cancelledURLs.isEmpty)
        try await fixture.waitUntilIdle()
    }

    @Test func appearDoesNotStartARequestDeferredForTheNetwork() async throws {
        let fixture = PipelineFixture()
        let binding = ImageBinding(target: RecordingTarget(), options: .init(pipeline: fixture.pipeline))
        binding.setRequest(PipelineFixture.request("later"), deferringNetwork: true)
        binding.disappear(.cancel)
        binding.appear()
        #expect(binding.state == .deferred)
        #expect(fixture.pipeline.activeTaskCount == 0)
    }

    @Test func aNewRequestForgetsWhatDisappearDid() async throws {
        let fixture = PipelineFixture()
        let binding = ImageBinding(target: RecordingTarget(), options: .init(pipeline: fixture.pipeline))
        binding.setRequest(PipelineFixture.request("a"))
        binding.disappear(.cancel)
        binding.setRequest(PipelineFixture.request("b"), deferringNetwork: true)
        binding.appear()
        #expect(binding.state == .deferred)
        #expect(fixture.pipeline.activeTaskCount == 0)
        try await fixture.waitUntilIdle()
    }
}
