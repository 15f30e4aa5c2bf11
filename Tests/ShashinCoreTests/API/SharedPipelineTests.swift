import Foundation
import Testing
@testable import ShashinCore

/// `ImagePipeline.shared` is the app's to set, once or at any time, from any thread; every entry
/// point that is not given a pipeline reads it when it loads. The suite runs alone: it is the
/// only one that sets the process's shared pipeline.
@MainActor
@Suite("The shared pipeline: set once, read everywhere", .serialized)
struct SharedPipelineTests {
    @Test nonisolated func swappingItWhileManyThreadsReadItAlwaysGivesAPipelineThatWasSet() async {
        let pipelines = (0..<8).map { _ in PipelineFixture().pipeline }
        let before = ImagePipeline.shared
        defer { ImagePipeline.shared = before }
        ImagePipeline.shared = pipelines[0]
        let set = Set(pipelines.map(ObjectIdentifier.init))
        // Four writers swap it while sixteen readers read it, 2,000 times each, on the pool.
        let strays = await withTaskGroup(of: Int.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    for step in 0..<2_000 { ImagePipeline.shared = pipelines[(writer + step) % pipelines.count] }
                    return 0
                }
            }
            for _ in 0..<16 {
                group.addTask { (0..<2_000).count { _ in !set.contains(ObjectIdentifier(ImagePipeline.shared)) } }
            }
            return await group.reduce(0, +)
        }
        #expect(strays == 0)
        ImagePipeline.shared = pipelines[5]
        #expect(ImagePipeline.shared === pipelines[5], "the last write is what everyone reads")
    }

    @Test func aBindingWithoutAPipelineLoadsThroughTheSharedOneOfTheMoment() async throws {
        let first = PipelineFixture(), second = PipelineFixture()
        let before = ImagePipeline.shared
        defer { ImagePipeline.shared = before }
        ImagePipeline.shared = first.pipeline
        let target = RecordingTarget()
        let binding = ImageBinding(target: target)  // no pipeline: the shared one, read at each request
        #expect(binding.pipeline === first.pipeline)
        ImagePipeline.shared = second.pipeline
        let request = PipelineFixture.request("swapped")
        binding.setRequest(request)
        #expect(binding.pipeline === second.pipeline)
        try await second.loader.respond(to: request.url!, with: PipelineFixture.imageData(fill: 4))
        try await waitUntil { binding.state == .success(.none) }
        #expect(first.loader.startCount == 0 && target.imagesShown == [4])
        // The defaults of the other entry points are read when they are made.
        #expect(ImagePrefetcher().pipeline === second.pipeline)
        #expect(VisibleItemsLoader<Int> { _ in nil }.pipeline === second.pipeline)
        try await second.waitUntilIdle()
    }
}
