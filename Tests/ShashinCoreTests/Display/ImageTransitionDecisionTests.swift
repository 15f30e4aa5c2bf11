import Foundation
import Testing
@testable import ShashinCore

/// Which transition an image appears with: the options' own for loaded images, none for memory
/// hits unless forced.
@MainActor
@Suite("Transition decisions")
struct ImageTransitionDecisionTests {
    @Test(arguments: ImageResponse.Source.allCases)
    func onlyMemoryHitsAppearAtOnceUnlessForced(source: ImageResponse.Source) {
        for transition in [ImageTransition.fade(duration: 0.3), .custom, .none] {
            let options = ImageBinding.Options(transition: transition)
            #expect(options.transition(for: source) == (source == .memory ? .none : transition))
            let forced = ImageBinding.Options(transition: transition, forcesTransition: true)
            #expect(forced.transition(for: source) == transition)
        }
    }

    @Test func aForcedTransitionReachesTheViewForAMemoryHit() {
        let fixture = PipelineFixture()
        let request = PipelineFixture.request("cached")
        fixture.cache.store(TestImages.makeImage(width: 2, height: 2, fill: 9), forKey: request.cacheKey)
        let target = RecordingTarget()
        let binding = ImageBinding(target: target, pipeline: fixture.pipeline,
                                   options: .init(transition: .custom, forcesTransition: true))
        binding.setRequest(request)
        #expect(target.history == [.image(fill: 9, transition: .custom)])
    }

    @Test func aCustomTransitionReachesTheViewForADownloadButNotForAMemoryHit() async throws {
        let fixture = PipelineFixture()
        let target = RecordingTarget()
        let binding = ImageBinding(target: target, pipeline: fixture.pipeline, options: .init(transition: .custom))
        let request = PipelineFixture.request("a")
        binding.setRequest(request)
        try await fixture.loader.respond(to: request.url!, with: PipelineFixture.imageData(fill: 3))
        try await waitUntil { binding.state == .success(.network) }
        binding.setRequest(nil)
        binding.setRequest(request)
        #expect(target.history == [.placeholder(fill: nil), .image(fill: 3, transition: .custom), .cleared,
                                   .image(fill: 3, transition: .none)])
        try await fixture.waitUntilIdle()
    }
}
