import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import ShashinCore

@Suite("Errors")
struct PipelineErrorTests {
    let url = PipelineFixture.url("a")

    func error(of task: ImageTask) async -> (any Error)? {
        do { _ = try await task.response; return nil } catch { return error }
    }

    @Test func aMissingURLIsAnInvalidURLError() async throws {
        let fixture = PipelineFixture()
        let task = fixture.task(ImageRequest(url: nil))
        #expect(await error(of: task) as? ImagePipelineError == .invalidURL(""))
        try await fixture.waitUntilIdle()
        #expect(fixture.loader.startCount == 0)
    }

    @Test func anUnsupportedSchemeIsRefusedBeforeLoading() async throws {
        let fixture = PipelineFixture()
        let task = fixture.task(ImageRequest(url: URL(string: "ftp://example.com/a.png")))
        #expect(await error(of: task) as? ImagePipelineError == .unsupportedScheme("ftp"))
        try await fixture.waitUntilIdle()
        #expect(fixture.loader.startCount == 0)
    }

    @Test func undecodableDataIsADecodingFailureAndNothingIsCached() async throws {
        let fixture = PipelineFixture()
        let task = fixture.task(ImageRequest(url: url))
        try await fixture.loader.respond(to: url, with: Data("<html>not found</html>".utf8))
        guard case .decodingFailed(let format, _)? = await error(of: task) as? ImagePipelineError else {
            Issue.record("expected decodingFailed"); return
        }
        #expect(format == nil)
        #expect(fixture.cache.totalCount == 0)
        try await fixture.waitUntilIdle()
    }

    @Test func anImageOverThePixelLimitIsRefused() async throws {
        let fixture = PipelineFixture { $0.maxPixelCount = 10 }
        let task = fixture.task(ImageRequest(url: url))
        try await fixture.loader.respond(to: url, with: TestImages.encode(width: 4, height: 4, fill: 1))
        #expect(await error(of: task) as? ImagePipelineError == .imageTooLarge(width: 4, height: 4, limit: 10))
        try await fixture.waitUntilIdle()
    }

    @Test func aThrowingProcessorFailsWithItsIdentifier() async throws {
        let fixture = PipelineFixture()
        let task = fixture.task(ImageRequest(url: url, processors: [CountingProcessor("boom", fails: true)]))
        try await fixture.loader.respond(to: url, with: TestImages.encode(width: 1, height: 1, fill: 1))
        guard case .processingFailed(let identifier, _)? = await error(of: task) as? ImagePipelineError else {
            Issue.record("expected processingFailed"); return
        }
        #expect(identifier == "boom")
        try await fixture.waitUntilIdle()
    }

    @Test func emptyDataIsAnEmptyDataError() async throws {
        let fixture = PipelineFixture()
        let task = fixture.task(ImageRequest(url: url))
        try await fixture.loader.respond(to: url, with: Data())
        #expect(await error(of: task) as? ImagePipelineError == .emptyData)
        try await fixture.waitUntilIdle()
    }

    @Test func aLoaderFailureReachesEveryWaitingTask() async throws {
        let fixture = PipelineFixture()
        let tasks = [fixture.task(ImageRequest(url: url)), fixture.task(ImageRequest(url: url))]
        try await fixture.loader.fail(url, with: ImagePipelineError.httpStatus(404))
        for task in tasks { #expect(await error(of: task) as? ImagePipelineError == .httpStatus(404)) }
        try await fixture.waitUntilIdle()
    }

    @Test func theRequestModifierRunsBeforeLoading() async throws {
        let fixture = PipelineFixture {
            $0.requestModifier = { request in
                var request = request
                request.setValue("Bearer token", forHTTPHeaderField: "Authorization")
                return request
            }
        }
        let task = fixture.task(ImageRequest(url: url))
        try await fixture.loader.waitForPendingCount(1)
        #expect(fixture.loader.lastRequest?.value(forHTTPHeaderField: "Authorization") == "Bearer token")
        try await fixture.loader.respond(to: url, with: TestImages.encode(width: 1, height: 1, fill: 1))
        _ = try await task.image
        try await fixture.waitUntilIdle()
    }

    @Test func everyErrorHasAClearMessage() {
        let errors: [ImagePipelineError] = [.invalidURL("x"), .unsupportedScheme("ftp"), .httpStatus(404), .dataTooLarge(limit: 10),
                                            .truncatedData(expected: 10, received: 5), .emptyData,
                                            .decodingFailed(format: .png, reason: "bad"), .imageTooLarge(width: 1, height: 2, limit: 1),
                                            .processingFailed(identifier: "p", reason: "r"), .cacheMiss]
        for error in errors { #expect(error.localizedDescription == error.description && error.description.count > 10) }
        #expect(ImagePipelineError.httpStatus(404).description.contains("404"))
    }
}
