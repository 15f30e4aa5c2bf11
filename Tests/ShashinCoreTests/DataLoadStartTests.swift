import Foundation
import Testing
@testable import ShashinCore

/// `data(for:)` starts the download it causes on the caller's thread while other downloads run:
/// it must stay a download of its own, shared and cancelled as any other.
@Suite("Data loads started by their caller")
struct DataLoadStartTests {
    let url = PipelineFixture.url("shared")

    @Test func cancellingTheCallerThatStartedADownloadKeepsItForTheOtherCaller() async throws {
        let fixture = PipelineFixture()
        // Another download running, so that the next one starts on its caller's thread.
        let other = Task { try await fixture.pipeline.data(for: ImageRequest(url: PipelineFixture.url("other"))) }
        try await fixture.loader.waitForPendingCount(1)
        let first = Task { try await fixture.pipeline.data(for: ImageRequest(url: url)) }
        try await fixture.loader.waitForPendingCount(2)
        let second = Task { try await fixture.pipeline.data(for: ImageRequest(url: url)) }
        // Both subscribed to the one job (a live task counts before it subscribes).
        try await eventually { fixture.pipeline.graph.fetchSubscriberCount(for: ImageRequest(url: url)) == 2 }
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.value }
        try await fixture.loader.respond(to: url, with: Data([1, 2, 3]))
        #expect(try await second.value.0 == Data([1, 2, 3]))
        #expect(fixture.loader.cancelledURLs.isEmpty)
        try await fixture.loader.respond(to: PipelineFixture.url("other"), with: Data([4]))
        #expect(try await other.value.0 == Data([4]))
        #expect(fixture.loader.startedURLs == [PipelineFixture.url("other"), url])
        try await fixture.waitUntilIdle()
    }

    @Test(.timeLimit(.minutes(1))) func loadsFromALoaderThatAnswersWithoutWaitingAllFinish() async throws {
        var configuration = ImagePipeline.Configuration(decoder: TestDecoder())
        configuration.dataLoader = ControlledDataLoader { _ in .success(Data([9, 8, 7, 6])) }
        configuration.memoryCache = nil
        configuration.maxConcurrentDownloads = 2 // 300 loads, 2 slots: some wait for one a finished download frees
        let pipeline = ImagePipeline(configuration: configuration)
        let sizes = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<300 {
                group.addTask { try await pipeline.data(for: ImageRequest(url: PipelineFixture.url("\(index)"))).0.count }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(sizes == Array(repeating: 4, count: 300))
        try await eventually { pipeline.activeTaskCount == 0 && pipeline.graph.jobCount == 0 }
    }
}
