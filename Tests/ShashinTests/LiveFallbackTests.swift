import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageServer
import Shashin
import Testing

/// Alternative sources over real HTTP (`ImageRequest.alternativeSources`): a primary that fails
/// gives way to the next source, the response names the one that produced the image, and an
/// alternative's image is never kept under the request's own key.
@Suite("Over HTTP: falling back to alternative sources")
struct LiveFallbackTests {
    @Test("a 500 on the primary falls back to the second source, and the response names it",
          arguments: LoaderFactory.all)
    func serverErrorFallsBack(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        fixture.server.setRoute("/primary.jpg", .status(500, text: "down"))
        let mirror = fixture.serveImage("/mirror.jpg", width: 80, height: 60)
        var request = ImageRequest(url: fixture.server.url("/primary.jpg"))
        request.alternativeSources = [.url(mirror), .url(fixture.server.url("/never.jpg"))]
        let response = try await fixture.pipeline.response(for: request)
        #expect(response.source.url == mirror)
        #expect(response.urlResponse?.url == mirror)
        #expect(response.image.testBitmap.width == 80)
        #expect(fixture.server.requestCount(for: "/primary.jpg") == 1)
        #expect(fixture.server.requestCount(for: "/mirror.jpg") == 1)
        #expect(fixture.server.requestCount(for: "/never.jpg") == 0)
        // The mirror's image is not kept under the request's key: once the primary is back, the
        // next load shows the primary's own image.
        let primary = fixture.serveImage("/primary.jpg", width: 120, height: 90)
        guard case .inProgress(let task) = fixture.pipeline.loadImage(request) else {
            Issue.record("the mirror's image answered from memory for the primary")
            return
        }
        let next = try await task.response
        #expect(next.source.url == primary && next.image.testBitmap.width == 120)
        #expect(fixture.server.requestCount(for: "/primary.jpg") == 2)
        #expect(fixture.server.requestCount(for: "/mirror.jpg") == 1)
        try await fixture.finish()
    }

    @Test("an alternative's bytes are stored on disk under its own URL, never under the request's image identifier",
          arguments: LoaderFactory.all)
    func alternativeIsStoredUnderItsOwnURL(loader: LoaderFactory) async throws {
        let (fixture, _) = try await LiveFixture.startOnDisk(loader) {
            $0.httpCacheOptions.storagePolicy = .keepSuccessfulResponses(for: 3600)
        }
        fixture.server.setRoute("/primary.jpg", .status(500, text: "down"))
        let mirror = fixture.serveImage("/mirror.jpg", width: 80, height: 60)
        var request = ImageRequest(url: fixture.server.url("/primary.jpg"))
        request.imageID = "photo-1"
        request.alternativeSources = [.url(mirror)]
        let first = try await fixture.pipeline.response(for: request)
        #expect(first.source.url == mirror && first.image.testBitmap.width == 80)

        // The primary is back: the next load asks it, and shows its own image.
        let primary = fixture.serveImage("/primary.jpg", width: 120, height: 90)
        let next = try await fixture.pipeline.response(for: request)
        #expect(next.source.url == primary && next.image.testBitmap.width == 120 && next.cacheType == .none)
        #expect(fixture.server.requestCount(for: "/primary.jpg") == 2)

        // The mirror's bytes answer a request for the mirror's URL, from disk.
        let mirrored = try await fixture.pipeline.response(for: ImageRequest(url: mirror))
        #expect(mirrored.cacheType == .disk && mirrored.image.testBitmap.width == 80)
        #expect(fixture.server.requestCount(for: "/mirror.jpg") == 1)
        try await fixture.finish()
    }

    @Test("each source fails in turn: the last one's error ends the task", arguments: LoaderFactory.all)
    func everySourceFails(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        fixture.server.setRoute("/a.jpg", .status(500))
        fixture.server.setRoute("/b.jpg", .status(404))
        var request = ImageRequest(url: fixture.server.url("/a.jpg"))
        request.alternativeSources = [.url(fixture.server.url("/b.jpg"))]
        await #expect(throws: ImagePipelineError.httpStatus(404)) { try await fixture.pipeline.response(for: request) }
        #expect(fixture.server.requestCount(for: "/a.jpg") == 1 && fixture.server.requestCount(for: "/b.jpg") == 1)
        try await fixture.finish()
    }

    @Test("the primary is retried before the fallback is tried", arguments: LoaderFactory.all)
    func retriesComeFirst(loader: LoaderFactory) async throws {
        let clock = ManualRetryClock()
        let fixture = try await LiveFixture.start(loader) {
            $0.retryPolicy = RetryPolicy(maxAttempts: 2, random: { 0 }, clock: clock)
        }
        fixture.server.setRoute("/flaky.jpg", .status(503))
        let mirror = fixture.serveImage("/mirror.jpg")
        var request = ImageRequest(url: fixture.server.url("/flaky.jpg"))
        request.alternativeSources = [.url(mirror)]
        let response = try await fixture.pipeline.response(for: request)
        #expect(response.source.url == mirror)
        #expect(fixture.server.requestCount(for: "/flaky.jpg") == 2)
        #expect(response.timings.attempts == 1) // the mirror's own, at its first attempt
        try await fixture.finish()
    }
}
