import Foundation
@testable import ShashinCore

/// A pipeline over a `ControlledDataLoader` and the `TestDecoder`.
struct PipelineFixture {
    let loader: ControlledDataLoader
    let decoder = TestDecoder()
    let cache = MemoryCache(costLimit: 10 << 20)
    let pipeline: ImagePipeline

    init(loader: ControlledDataLoader = ControlledDataLoader(), _ configure: (inout ImagePipeline.Configuration) -> Void = { _ in }) {
        self.loader = loader
        var configuration = ImagePipeline.Configuration(decoder: decoder)
        configuration.dataLoader = loader
        configuration.memoryCache = cache
        configure(&configuration)
        pipeline = ImagePipeline(configuration: configuration)
    }

    static func url(_ name: String) -> URL { URL(string: "https://images.test/\(name)")! }

    /// Starts a task for `request`, which must miss the memory cache.
    func task(_ request: ImageRequest) -> ImageTask {
        guard case .inProgress(let task) = pipeline.loadImage(request) else {
            fatalError("expected a memory-cache miss for \(request)")
        }
        return task
    }

    /// Waits until the graph has no live tasks and no jobs.
    func waitUntilIdle() async throws {
        try await eventually { pipeline.activeTaskCount == 0 && pipeline.graph.jobCount == 0 }
    }

    /// Returns once the graph has run everything sent to it so far with `GraphActor.async`
    /// (progress, previews, work sent from the graph itself); task starts, priority changes and
    /// cancellations from a test's thread reach it before they return.
    func flushGraph() async {
        // Every block sent with `GraphActor.async` so far has run once the actor's queue reaches
        // this one (a `GraphActor.sync` takes only the lock, and may overtake them). Awaited, not
        // `queue.sync`: a test that holds the queue back must not take the Swift pool's threads.
        await withCheckedContinuation { continuation in GraphActor.queue.async { continuation.resume() } }
    }
}
