import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import ShashinCore

/// Answers after a random short wait: a test image, a failure, or bytes that are no image.
private struct RandomLoader: DataLoading {
    func loadData(for request: URLRequest, maxBytes: Int,
                  progress: @escaping @Sendable (Int64, Int64) -> Void) async throws -> (Data, URLResponse) {
        try await Task.sleep(nanoseconds: UInt64.random(in: 0...400_000))
        let url = request.url!
        let roll = Int.random(in: 0..<100)
        if roll < 8 { throw URLError(.networkConnectionLost) }
        let data = roll < 12 ? Data("not an image".utf8) : TestImages.encode(width: 4, height: 3, fill: 9)
        progress(Int64(data.count), Int64(data.count))
        return (data, HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: nil)!)
    }
}

/// Counts how each task ended.
private final class Outcomes: Sendable {
    let counts = Locked<(images: Int, errors: Int, cancelled: Int)>((0, 0, 0))
    var total: Int { counts.withLock { $0.images + $0.errors + $0.cancelled } }
}

@Suite("Pipeline under concurrent load")
struct PipelineStressTests {
    /// 100,000 by default; the ThreadSanitizer run asks for fewer (`SHASHIN_STRESS_REQUESTS`).
    static let requestCount = ProcessInfo.processInfo.environment["SHASHIN_STRESS_REQUESTS"].flatMap(Int.init) ?? 100_000

    @Test("8 producers issue, cancel and re-prioritise requests; every task ends once and the pipeline drains")
    func producers() async throws {
        let fixture = PipelineFixture(loader: ControlledDataLoader()) { configuration in
            configuration.dataLoader = RandomLoader()
            configuration.maxConcurrentDownloads = 6
        }
        let pipeline = fixture.pipeline
        let outcomes = Outcomes()
        let perProducer = Self.requestCount / 8
        let processors: [[any ImageProcessing]] = [[], [CountingProcessor("a")], [CountingProcessor("a"), CountingProcessor("b")]]

        await withTaskGroup(of: Void.self) { producers in
            for producer in 0..<8 {
                producers.addTask {
                    await withTaskGroup(of: Void.self) { tasks in
                        for index in 0..<perProducer {
                            if index >= 64 { await tasks.next() } // at most 64 in flight per producer
                            tasks.addTask {
                                var request = ImageRequest(url: PipelineFixture.url("\(Int.random(in: 0..<2000))"),
                                                           processors: processors[(producer + index) % 3],
                                                           priority: ImageRequest.Priority.allCases.randomElement()!)
                                if index % 2 == 0 { request.options = .disableMemoryCache }
                                await Self.run(request, on: pipeline, outcomes: outcomes)
                            }
                        }
                    }
                }
            }
        }

        #expect(outcomes.total == perProducer * 8)
        try await fixture.waitUntilIdle()
        #expect(pipeline.activeTaskCount == 0)
        #expect(pipeline.graph.networkQueue.runningCount == 0 && pipeline.graph.networkQueue.pendingCount == 0)
        #expect(pipeline.graph.decodeQueue.pendingCount == 0 && pipeline.graph.processingQueue.pendingCount == 0)
        let counts = outcomes.counts.current
        #expect(counts.images > 0 && counts.errors > 0 && counts.cancelled > 0)
    }

    /// One request: 30% cancelled at a random moment, 30% re-prioritised, then awaited once.
    private static func run(_ request: ImageRequest, on pipeline: ImagePipeline, outcomes: Outcomes) async {
        let task: ImageTask
        switch pipeline.loadImage(request) {
        case .cached:
            outcomes.counts.withLock { $0.images += 1 }
            return
        case .inProgress(let started):
            task = started
        }
        let roll = Int.random(in: 0..<100)
        if roll < 30 {
            let canceller = Task {
                if roll < 10 { await Task.yield() } else { try? await Task.sleep(nanoseconds: UInt64.random(in: 0...300_000)) }
                task.cancel()
            }
            _ = canceller
        } else if roll < 60 {
            task.priority = ImageRequest.Priority.allCases.randomElement()!
        }
        do {
            _ = try await task.response
            outcomes.counts.withLock { $0.images += 1 }
        } catch is CancellationError {
            outcomes.counts.withLock { $0.cancelled += 1 }
        } catch {
            outcomes.counts.withLock { $0.errors += 1 }
        }
    }
}
