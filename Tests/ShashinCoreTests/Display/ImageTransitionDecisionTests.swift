import Foundation
import Testing
@testable import ShashinCore

/// Which transition an image appears with: the options' own for loaded images, none for memory
/// hits unless forced.
@MainActor
@Suite("Transition decisions")
struct ImageTransitionDecisionTests {
    /// A view framework's own animation, as `ShashinUI` makes them.
    let custom = ImageTransition.custom("an animation", duration: 0.3)

    @Test(arguments: ImageResponse.CacheType.allCases)
    func onlyMemoryHitsAppearAtOnceUnlessForced(cacheType: ImageResponse.CacheType) {
        for transition in [ImageTransition.fade(duration: 0.3), custom, .immediate] {
            let options = ImageLoadingOptions(transition: transition)
            #expect(options.transition(for: cacheType) == (cacheType == .memory ? .immediate : transition))
            let forced = ImageLoadingOptions(transition: transition, forcesTransition: true)
            #expect(forced.transition(for: cacheType) == transition)
        }
        // Said nowhere: a 0.25 s fade for what did not come from memory.
        #expect(ImageLoadingOptions().transition(for: cacheType) == (cacheType == .memory ? .immediate : .fade(duration: 0.25)))
    }

    @Test func aForcedTransitionReachesTheViewForAMemoryHit() {
        let fixture = PipelineFixture()
        let request = PipelineFixture.request("cached")
        fixture.cache.store(TestImages.makeImage(width: 2, height: 2, fill: 9), forKey: request.cacheKey)
        let target = RecordingTarget()
        let binding = ImageBinding(target: target, options: .init(pipeline: fixture.pipeline, transition: custom, forcesTransition: true))
        binding.setRequest(request)
        #expect(target.history == [.image(fill: 9, transition: custom)])
    }

    @Test func aCustomTransitionReachesTheViewForADownloadButNotForAMemoryHit() async throws {
        let fixture = PipelineFixture()
        let target = RecordingTarget()
        let binding = ImageBinding(target: target, options: .init(pipeline: fixture.pipeline, transition: custom))
        let request = PipelineFixture.request("a")
        binding.setRequest(request)
        try await fixture.loader.respond(to: request.url!, with: PipelineFixture.imageData(fill: 3))
        try await waitUntil { binding.state == .success(.none) }
        binding.setRequest(nil)
        binding.setRequest(request)
        #expect(target.history == [.placeholder(fill: nil), .image(fill: 3, transition: custom), .cleared,
                                   .image(fill: 3, transition: .immediate)])
        try await fixture.waitUntilIdle()
    }
}
