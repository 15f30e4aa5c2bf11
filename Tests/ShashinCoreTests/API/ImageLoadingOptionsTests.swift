import Foundation
import Testing
@testable import ShashinCore

/// The view layer's options: a call's own, over `ImageLoadingOptions.shared`, over the built-in
/// defaults. The tests that set the shared options do so and restore them without suspending, so
/// no other test on the main actor ever runs while they are changed.
@MainActor
@Suite("Loading options: a call's over the shared ones over the defaults")
struct ImageLoadingOptionsTests {
    let grey = TestImages.makeImage(width: 1, height: 1, fill: 200)
    let blue = TestImages.makeImage(width: 1, height: 1, fill: 210)
    let red = TestImages.makeImage(width: 1, height: 1, fill: 220)

    @Test func eachPropertyTheCallLeavesNilComesFromTheDefaults() {
        let pipeline = PipelineFixture().pipeline
        let defaults = ImageLoadingOptions(pipeline: pipeline, placeholder: grey, failureImage: red, transition: .fade(duration: 0.5),
                                           forcesTransition: true, contentMode: .scaleAspectFit, keepsCurrentImageWhileLoading: true,
                                           priority: .low)
        let merged = ImageLoadingOptions(placeholder: blue, transition: .immediate, priority: .high).merging(over: defaults)
        #expect(merged.placeholder?.testBitmap.pixels[0] == 210 && merged.transition == .immediate && merged.priority == .high,
                "the call's own")
        #expect(merged.pipeline === pipeline && merged.failureImage?.testBitmap.pixels[0] == 220 && merged.forcesTransition == true
                && merged.contentMode == .scaleAspectFit && merged.keepsCurrentImageWhileLoading == true, "the rest from the defaults")
        let nothing = ImageLoadingOptions().merging(over: ImageLoadingOptions())
        #expect(nothing.placeholder == nil && nothing.transition == nil && nothing.pipeline == nil)
        #expect(nothing.transition(for: .none) == .fade(duration: 0.25), "said nowhere: the built-in 0.25 s fade")
    }

    @Test func aBindingMergesTheCallsOptionsOverTheSharedOnesAtEachRequest() {
        let fixture = PipelineFixture()
        let saved = ImageLoadingOptions.shared
        defer { ImageLoadingOptions.shared = saved }
        ImageLoadingOptions.shared = ImageLoadingOptions(placeholder: grey, failureImage: red, transition: .fade(duration: 0.5))
        let target = RecordingTarget()
        // The call names the pipeline and a placeholder of its own; the transition is the shared one.
        let binding = ImageBinding(target: target, options: .init(pipeline: fixture.pipeline, placeholder: blue))
        binding.setRequest(PipelineFixture.request("missing"), deferringNetwork: true)
        #expect(target.history == [.placeholder(fill: 210)])
        let cached = PipelineFixture.request("cached")
        fixture.cache.store(TestImages.makeImage(width: 2, height: 2, fill: 9), forKey: cached.cacheKey)
        binding.options.forcesTransition = true
        binding.setRequest(cached)
        #expect(target.last == .image(fill: 9, transition: .fade(duration: 0.5)), "forced by the call, the shared fade")
        // The shared options change: the next request follows them, the call's own still win.
        ImageLoadingOptions.shared.placeholder = red
        ImageLoadingOptions.shared.transition = .fade(duration: 0.1)
        binding.setRequest(PipelineFixture.request("other"), deferringNetwork: true)
        #expect(target.last == .placeholder(fill: 210))
        binding.setRequest(cached)
        #expect(target.last == .image(fill: 9, transition: .fade(duration: 0.1)))
    }

    @Test func withoutAnyOptionsAMemoryHitAppearsAtOnceAndADownloadFadesIn() async throws {
        let fixture = PipelineFixture()
        let target = RecordingTarget()
        let binding = ImageBinding(target: target, options: .init(pipeline: fixture.pipeline))
        let request = PipelineFixture.request("fresh")
        binding.setRequest(request)
        try await fixture.loader.respond(to: request.url!, with: PipelineFixture.imageData(fill: 3))
        try await waitUntil { binding.state == .success(.none) }
        binding.setRequest(nil)
        binding.setRequest(request)
        #expect(target.imagesShown == [3, 3])
        let transitions = target.history.compactMap { shown -> ImageTransition? in
            if case .image(_, let transition) = shown { transition } else { nil }
        }
        #expect(transitions == [.fade(duration: 0.25), .immediate])
        try await fixture.waitUntilIdle()
    }
}
