import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import ShashinCore

/// The end of a download reaches the graph with `GraphActor.sync`, which can overtake progress the
/// loader sent with `GraphActor.async` just before: the last report must still come first.
@Suite("Task events: the last progress")
struct LastProgressTests {
    /// Reports its whole body's progress, then answers, while every block sent to the graph's
    /// queue waits behind `gate`: the report can reach the graph only after the answer has.
    struct GatedLoader: DataLoading {
        let gate: DispatchSemaphore
        let body = TestImages.encode(width: 1, height: 1, fill: 3)

        func loadData(for request: URLRequest, maxBytes: Int,
                      progress: @escaping @Sendable (Int64, Int64) -> Void) async throws -> (Data, URLResponse) {
            let gate = gate
            GraphActor.queue.async { gate.wait() }
            progress(Int64(body.count), Int64(body.count))
            return (body, HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: nil)!)
        }
    }

    @Test func theLastProgressComesBeforeTheEndWhenTheEndOvertakesIt() async throws {
        let gate = DispatchSemaphore(value: 0)
        let loader = GatedLoader(gate: gate)
        var configuration = ImagePipeline.Configuration(decoder: TestDecoder())
        configuration.dataLoader = loader
        configuration.diskCache = nil
        let pipeline = ImagePipeline(configuration: configuration)
        let task = pipeline.imageTask(with: ImageRequest(url: PipelineFixture.url("gated")))
        let collector = Task { () -> [ImageTask.Event] in
            var events: [ImageTask.Event] = []
            for await event in task.events { events.append(event) }
            return events
        }
        _ = try await task.response
        gate.signal()
        let events = await collector.value
        let progress = events.compactMap { if case .progress(let p) = $0 { p } else { nil } }
        #expect(progress == [ImageTask.Progress(completed: Int64(loader.body.count), total: Int64(loader.body.count))])
        guard case .finished(.success)? = events.last else { Issue.record("no finish last: \(events)"); return }
    }
}
