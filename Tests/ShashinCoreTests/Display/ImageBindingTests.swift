import Foundation
import Testing
@testable import ShashinCore

@MainActor
@Suite("ImageBinding: reuse-safe display")
struct ImageBindingTests {
    let placeholder = TestImages.makeImage(width: 1, height: 1, fill: 200)
    let failure = TestImages.makeImage(width: 1, height: 1, fill: 201)

    @Test func aViewReassignedFromAToBBeforeAFinishesNeverShowsA() async throws {
        let fixture = PipelineFixture()
        let target = RecordingTarget()
        let binding = ImageBinding(target: target, pipeline: fixture.pipeline)
        let a = PipelineFixture.request("a"), b = PipelineFixture.request("b")
        // Someone else also wants A, so A's download goes on and really finishes.
        let other = fixture.task(a)
        binding.setRequest(a)
        try await fixture.loader.waitForPendingCount(1)
        binding.setRequest(b)
        try await fixture.loader.respond(to: a.url!, with: PipelineFixture.imageData(fill: 1))
        _ = try await other.image
        try await fixture.loader.respond(to: b.url!, with: PipelineFixture.imageData(fill: 2))
        try await waitUntil { binding.state == .success(.network) }
        #expect(target.imagesShown == [2])
        #expect(target.last == .image(fill: 2, transition: .fade(duration: 0.25)))
        try await fixture.waitUntilIdle()
    }

    @Test func aHundredRapidReassignmentsEndWithTheLastImage() async throws {
        let fixture = PipelineFixture(loader: ControlledDataLoader { url in
            .success(PipelineFixture.imageData(fill: UInt8(url.lastPathComponent)!))
        })
        let target = RecordingTarget()
        let binding = ImageBinding(target: target, pipeline: fixture.pipeline)
        for i in 1...100 { binding.setRequest(PipelineFixture.request("\(i)")) }
        try await waitUntil { binding.state == .success(.network) }
        #expect(target.imagesShown == [100])
        #expect(binding.request?.url == PipelineFixture.url("100"))
        try await fixture.waitUntilIdle()
    }

    @Test func aMemoryHitShowsSynchronouslyWithNoPlaceholderAndNoTransition() async throws {
        let fixture = PipelineFixture()
        let request = PipelineFixture.request("cached")
        fixture.cache.store(TestImages.makeImage(width: 2, height: 2, fill: 9), forKey: request.cacheKey)
        let target = RecordingTarget()
        let binding = ImageBinding(target: target, pipeline: fixture.pipeline, options: .init(placeholder: placeholder))
        binding.setRequest(request)
        // No suspension point since setRequest: whatever is shown was shown synchronously.
        #expect(target.history == [.image(fill: 9, transition: .none)])
        #expect(binding.state == .success(.memory))
        #expect(fixture.loader.startCount == 0)
    }

    @Test func aMissShowsThePlaceholderThenFadesTheImageIn() async throws {
        let fixture = PipelineFixture()
        let target = RecordingTarget()
        let binding = ImageBinding(target: target, pipeline: fixture.pipeline,
                                   options: .init(placeholder: placeholder, transition: .fade(duration: 0.4)))
        let request = PipelineFixture.request("slow")
        binding.setRequest(request)
        #expect(target.history == [.placeholder(fill: 200)])
        #expect(binding.state == .loading)
        try await fixture.loader.respond(to: request.url!, with: PipelineFixture.imageData(fill: 3))
        try await waitUntil { binding.state == .success(.network) }
        #expect(target.history == [.placeholder(fill: 200), .image(fill: 3, transition: .fade(duration: 0.4))])
    }

    @Test func aFailureShowsTheFailureImageAndReportsIt() async throws {
        let fixture = PipelineFixture()
        let target = RecordingTarget()
        let binding = ImageBinding(target: target, pipeline: fixture.pipeline, options: .init(failureImage: failure))
        var reported: [Bool] = []
        binding.onCompletion = { reported.append((try? $0.get()) != nil) }
        let request = PipelineFixture.request("broken")
        binding.setRequest(request)
        try await fixture.loader.respond(to: request.url!, with: Data("not an image".utf8))
        try await waitUntil { binding.state == .failure }
        #expect(target.last == .failure(fill: 201))
        #expect(reported == [false])
    }

    @Test func aNilRequestClearsTheViewAndCancelsTheLoad() async throws {
        let fixture = PipelineFixture()
        let target = RecordingTarget()
        let binding = ImageBinding(target: target, pipeline: fixture.pipeline)
        binding.setRequest(PipelineFixture.request("gone"))
        try await fixture.loader.waitForPendingCount(1)
        binding.setRequest(nil)
        #expect(target.last == .cleared)
        #expect(binding.state == .empty)
        try await waitUntil { fixture.loader.cancelledURLs == [PipelineFixture.url("gone")] }
        try await fixture.waitUntilIdle()
    }

    @Test func aDeferredRequestShowsMemoryHitsButStartsNoDownloadUntilAsked() async throws {
        let fixture = PipelineFixture()
        let target = RecordingTarget()
        let binding = ImageBinding(target: target, pipeline: fixture.pipeline, options: .init(placeholder: placeholder))
        let request = PipelineFixture.request("later")
        binding.setRequest(request, deferringNetwork: true)
        #expect(binding.state == .deferred)
        #expect(target.history == [.placeholder(fill: 200)])
        fixture.flushGraph()
        #expect(fixture.loader.startCount == 0)

        #expect(binding.startDeferredLoad(priority: .high))
        #expect(binding.priority == .high)
        try await fixture.loader.respond(to: request.url!, with: PipelineFixture.imageData(fill: 4))
        try await waitUntil { binding.state == .success(.network) }
        #expect(target.imagesShown == [4])
        #expect(target.history.filter { $0 == .placeholder(fill: 200) }.count == 1)

        let other = ImageBinding(target: RecordingTarget(), pipeline: fixture.pipeline)
        other.setRequest(request, deferringNetwork: true)
        #expect(other.state == .success(.memory))
    }

    @Test func keepingTheCurrentImageSkipsThePlaceholder() async throws {
        let fixture = PipelineFixture()
        let first = PipelineFixture.request("small")
        fixture.cache.store(TestImages.makeImage(width: 2, height: 2, fill: 5), forKey: first.cacheKey)
        let target = RecordingTarget()
        let binding = ImageBinding(target: target, pipeline: fixture.pipeline,
                                   options: .init(placeholder: placeholder, keepsCurrentImageWhileLoading: true))
        binding.setRequest(first)
        binding.setRequest(PipelineFixture.request("large"))
        #expect(target.history == [.image(fill: 5, transition: .none)])
        #expect(binding.state == .loading)
        binding.setRequest(nil)
    }
}
