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
        let binding = ImageBinding(target: target, options: .init(pipeline: fixture.pipeline))
        let a = PipelineFixture.request("a"), b = PipelineFixture.request("b")
        // Someone else also wants A, so A's download goes on and really finishes.
        let other = fixture.task(a)
        binding.setRequest(a)
        try await fixture.loader.waitForPendingCount(1)
        binding.setRequest(b)
        try await fixture.loader.respond(to: a.url!, with: PipelineFixture.imageData(fill: 1))
        _ = try await other.image
        try await fixture.loader.respond(to: b.url!, with: PipelineFixture.imageData(fill: 2))
        try await waitUntil { binding.state == .success(.none) }
        #expect(target.imagesShown == [2])
        #expect(target.last == .image(fill: 2, transition: .fade(duration: 0.25)))
        try await fixture.waitUntilIdle()
    }

    @Test func aHundredRapidReassignmentsEndWithTheLastImageAndLateResultsNeverShow() async throws {
        let fixture = PipelineFixture { $0.maxConcurrentDownloads = 100 }
        let target = RecordingTarget()
        let binding = ImageBinding(target: target, options: .init(pipeline: fixture.pipeline))
        var completions: [UInt8] = []
        binding.onCompletion = { if case .success(let response) = $0 { completions.append(response.image.testBitmap.pixels[0]) } }
        // Someone else wants images 1...99 too, so their downloads go on after the view moves on.
        let others = (1...99).map { fixture.task(PipelineFixture.request("\($0)")) }
        for i in 1...100 { binding.setRequest(PipelineFixture.request("\(i)")) }
        try await fixture.loader.waitForPendingCount(100)

        // Every earlier image arrives late, before the last one.
        for i in 1...99 {
            try await fixture.loader.respond(to: PipelineFixture.url("\(i)"), with: PipelineFixture.imageData(fill: UInt8(i)))
        }
        for (i, other) in others.enumerated() { #expect(try await other.image.testBitmap.pixels[0] == UInt8(i + 1)) }
        await fixture.flushGraph() // every late result has reached every task that still waited for it
        #expect(binding.state == .loading)
        try await fixture.loader.respond(to: PipelineFixture.url("100"), with: PipelineFixture.imageData(fill: 100))
        try await waitUntil { binding.state == .success(.none) }
        #expect(target.imagesShown == [100])
        #expect(completions == [100])
        #expect(binding.request?.url == PipelineFixture.url("100"))
        try await fixture.waitUntilIdle()
    }

    @Test func settingTheSameRequestWhileLoadingOnlyChangesThePriority() async throws {
        let fixture = PipelineFixture()
        let target = RecordingTarget()
        let binding = ImageBinding(target: target, options: .init(pipeline: fixture.pipeline, placeholder: placeholder))
        binding.setRequest(PipelineFixture.request("same", priority: .low))
        try await fixture.loader.waitForPendingCount(1)
        binding.setRequest(PipelineFixture.request("same", priority: .high))
        #expect(binding.priority == .high)
        #expect(binding.state == .loading)
        await fixture.flushGraph()
        #expect(fixture.loader.cancelledURLs.isEmpty)
        #expect(fixture.pipeline.activeTaskCount == 1)
        try await fixture.loader.respond(to: PipelineFixture.url("same"), with: PipelineFixture.imageData(fill: 6))
        try await waitUntil { binding.state == .success(.none) }
        #expect(fixture.loader.startCount == 1)
        #expect(target.history == [.placeholder(fill: 200), .image(fill: 6, transition: .fade(duration: 0.25))])
        try await fixture.waitUntilIdle()
    }

    @Test func settingTheShownRequestAgainLeavesTheViewAlone() async throws {
        let fixture = PipelineFixture()
        let target = RecordingTarget()
        let binding = ImageBinding(target: target, options: .init(pipeline: fixture.pipeline, placeholder: placeholder))
        let request = PipelineFixture.request("shown")
        binding.setRequest(request)
        try await fixture.loader.respond(to: request.url!, with: PipelineFixture.imageData(fill: 7))
        try await waitUntil { binding.state == .success(.none) }
        fixture.pipeline.trimMemory() // evicted since: a reload would show the placeholder
        binding.setRequest(request)
        binding.setRequest(request, deferringNetwork: true)
        #expect(binding.state == .success(.none))
        #expect(target.history == [.placeholder(fill: 200), .image(fill: 7, transition: .fade(duration: 0.25))])
        #expect(fixture.pipeline.activeTaskCount == 0)

        // Another image loads as usual.
        binding.setRequest(PipelineFixture.request("other"))
        #expect(binding.state == .loading)
        binding.setRequest(nil)
        try await fixture.waitUntilIdle()
    }

    @Test func aMemoryHitShowsSynchronouslyWithNoPlaceholderAndNoTransition() async throws {
        let fixture = PipelineFixture()
        let request = PipelineFixture.request("cached")
        fixture.cache.store(TestImages.makeImage(width: 2, height: 2, fill: 9), forKey: request.cacheKey)
        let target = RecordingTarget()
        let binding = ImageBinding(target: target, options: .init(pipeline: fixture.pipeline, placeholder: placeholder))
        binding.setRequest(request)
        // No suspension point since setRequest: whatever is shown was shown synchronously.
        #expect(target.history == [.image(fill: 9, transition: .immediate)])
        #expect(binding.state == .success(.memory))
        #expect(fixture.pipeline.activeTaskCount == 0)
    }

    @Test func aMissShowsThePlaceholderThenFadesTheImageIn() async throws {
        let fixture = PipelineFixture()
        let target = RecordingTarget()
        let binding = ImageBinding(target: target, options: .init(pipeline: fixture.pipeline, placeholder: placeholder, transition: .fade(duration: 0.4)))
        let request = PipelineFixture.request("slow")
        binding.setRequest(request)
        #expect(target.history == [.placeholder(fill: 200)])
        #expect(binding.state == .loading)
        try await fixture.loader.respond(to: request.url!, with: PipelineFixture.imageData(fill: 3))
        try await waitUntil { binding.state == .success(.none) }
        #expect(target.history == [.placeholder(fill: 200), .image(fill: 3, transition: .fade(duration: 0.4))])
    }

    @Test func aFailureShowsTheFailureImageAndReportsIt() async throws {
        let fixture = PipelineFixture()
        let target = RecordingTarget()
        let binding = ImageBinding(target: target, options: .init(pipeline: fixture.pipeline, failureImage: failure))
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
        let binding = ImageBinding(target: target, options: .init(pipeline: fixture.pipeline))
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
        let binding = ImageBinding(target: target, options: .init(pipeline: fixture.pipeline, placeholder: placeholder))
        let request = PipelineFixture.request("later")
        binding.setRequest(request, deferringNetwork: true)
        #expect(binding.state == .deferred)
        #expect(target.history == [.placeholder(fill: 200)])
        // No task was made, so nothing can be queued for the network either.
        #expect(fixture.pipeline.activeTaskCount == 0)
        #expect(fixture.pipeline.graph.jobCount == 0)

        #expect(binding.startDeferredLoad(priority: .high))
        #expect(binding.priority == .high)
        try await fixture.loader.respond(to: request.url!, with: PipelineFixture.imageData(fill: 4))
        try await waitUntil { binding.state == .success(.none) }
        #expect(target.imagesShown == [4])
        #expect(target.history.filter { $0 == .placeholder(fill: 200) }.count == 1)

        let other = ImageBinding(target: RecordingTarget(), options: .init(pipeline: fixture.pipeline))
        other.setRequest(request, deferringNetwork: true)
        #expect(other.state == .success(.memory))
    }

    @Test func aDeferredRequestSetAgainShowsTheImageThatReachedMemoryMeanwhile() async throws {
        let fixture = PipelineFixture()
        let target = RecordingTarget()
        let binding = ImageBinding(target: target, options: .init(pipeline: fixture.pipeline, placeholder: placeholder))
        let request = PipelineFixture.request("avatar")
        binding.setRequest(request, deferringNetwork: true)
        #expect(binding.state == .deferred)
        binding.setRequest(request, deferringNetwork: true) // still not in memory: nothing changes
        #expect(target.history == [.placeholder(fill: 200)])
        // Another view loaded the same image (the same avatar on another row).
        fixture.cache.store(TestImages.makeImage(width: 2, height: 2, fill: 8), forKey: request.cacheKey)
        binding.setRequest(request, deferringNetwork: true)
        #expect(binding.state == .success(.memory))
        #expect(target.history == [.placeholder(fill: 200), .image(fill: 8, transition: .immediate)])
        #expect(fixture.pipeline.activeTaskCount == 0)
    }

    @Test func keepingTheCurrentImageSkipsThePlaceholder() async throws {
        let fixture = PipelineFixture()
        let first = PipelineFixture.request("small")
        fixture.cache.store(TestImages.makeImage(width: 2, height: 2, fill: 5), forKey: first.cacheKey)
        let target = RecordingTarget()
        let binding = ImageBinding(target: target, options: .init(pipeline: fixture.pipeline, placeholder: placeholder, keepsCurrentImageWhileLoading: true))
        binding.setRequest(first)
        binding.setRequest(PipelineFixture.request("large"))
        #expect(target.history == [.image(fill: 5, transition: .immediate)])
        #expect(binding.state == .loading)
        binding.setRequest(nil)
    }
}
