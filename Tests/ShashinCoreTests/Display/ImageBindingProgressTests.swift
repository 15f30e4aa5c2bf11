import Foundation
import Testing
@testable import ShashinCore

/// `ImageBinding.progress` and `onProgress`: the current download's bytes, reset by a new request.
@MainActor
@Suite("ImageBinding: state with progress")
struct ImageBindingProgressTests {
    @Test func progressFollowsTheCurrentDownloadAndResetsOnANewRequest() async throws {
        let fixture = PipelineFixture()
        let binding = ImageBinding(target: RecordingTarget(), options: .init(pipeline: fixture.pipeline))
        var reported: [ImageTask.Progress] = []
        binding.onProgress = { reported.append($0) }
        binding.setRequest(PipelineFixture.request("a"))
        #expect(binding.progress == nil)
        try await fixture.loader.reportProgress(to: PipelineFixture.url("a"), completed: 100, total: 400)
        try await waitUntil { binding.progress == ImageTask.Progress(completed: 100, total: 400) }
        #expect(binding.state == .loading)
        #expect(binding.progress?.fraction == 0.25)
        try await fixture.loader.reportProgress(to: PipelineFixture.url("a"), completed: 300, total: 400)
        try await waitUntil { binding.progress?.completed == 300 }
        #expect(reported.map(\.completed) == [100, 300])

        // Another request: no progress until its own bytes come; A's never show again.
        binding.setRequest(PipelineFixture.request("b"))
        #expect(binding.progress == nil)
        try await fixture.loader.reportProgress(to: PipelineFixture.url("b"), completed: 5, total: 10)
        try await waitUntil { binding.progress == ImageTask.Progress(completed: 5, total: 10) }
        #expect(reported.map(\.completed) == [100, 300, 5])
        binding.setRequest(nil)
        #expect(binding.progress == nil)
        try await fixture.waitUntilIdle()
    }

    @Test func withoutAListenerNoProgressIsWatched() async throws {
        let fixture = PipelineFixture()
        let binding = ImageBinding(target: RecordingTarget(), options: .init(pipeline: fixture.pipeline))
        binding.setRequest(PipelineFixture.request("a"))
        try await fixture.loader.reportProgress(to: PipelineFixture.url("a"), completed: 1, total: 2)
        try await fixture.loader.respond(to: PipelineFixture.url("a"), with: PipelineFixture.imageData(fill: 1))
        try await waitUntil { binding.state == .success(.none) }
        #expect(binding.progress == nil)
        try await fixture.waitUntilIdle()
    }
}
