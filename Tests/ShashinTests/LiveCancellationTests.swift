import Foundation
import ImageServer
import Shashin
@testable import ShashinCore
import Testing

@Suite("Over HTTP: cancellation")
struct LiveCancellationTests {
    @Test(arguments: LoaderFactory.all) func cancellingOneOfTwoSubscribersLetsTheOtherGetItsImage(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        let url = fixture.serveImage("/a.jpg", width: 400, height: 300, bytesPerSecond: 40_000)
        let first = fixture.task(ImageRequest(url: url))
        let second = fixture.task(ImageRequest(url: url))
        try await waitFor { fixture.server.inFlight == 1 }
        first.cancel()
        await #expect(throws: CancellationError.self) { try await first.response }
        let image = try await second.image
        #expect(image.pixelWidth == 400)
        #expect(fixture.server.requestCount(for: "/a.jpg") == 1)
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all) func cancellingEverySubscriberCancelsTheDownload(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        let size = try await fixture.server.generator.data(for: ImageSpec(format: .png, width: 300, height: 300, seed: 1)).count
        // The whole body takes over 10 s at this rate: a response that ends with less than half
        // of it sent ended because the client hung up, however slowly this machine runs.
        let url = fixture.serveImage("/slow.png", format: .png, width: 300, height: 300, bytesPerSecond: size / 10)
        let tasks = [fixture.task(ImageRequest(url: url)), fixture.task(ImageRequest(url: url))]
        try await waitFor { fixture.server.bytesSent(for: "/slow.png") > 0 }
        tasks.forEach { $0.cancel() }
        try await waitFor { fixture.server.inFlight == 0 }
        #expect(fixture.server.bytesSent(for: "/slow.png") < size / 2)
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all) func cancellingAQueuedTaskFreesItsSlotWithoutARequest(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader) { $0.maxConcurrentDownloads = 1 }
        // Long enough that, even in a sanitizer build, the two below queue up behind it before it ends.
        let busy = fixture.task(ImageRequest(url: fixture.serveImage("/busy.jpg", latency: .milliseconds(1500))))
        // Tasks reach the graph asynchronously: "busy" must hold the only slot before the others exist.
        try await waitFor { fixture.server.requestCount(for: "/busy.jpg") == 1 }
        let queued = fixture.task(ImageRequest(url: fixture.serveImage("/queued.jpg")))
        let next = fixture.task(ImageRequest(url: fixture.serveImage("/next.jpg")))
        try await waitFor { fixture.server.inFlight == 1 && fixture.pipeline.graph.networkQueue.pendingCount == 2 }
        queued.cancel()
        _ = try await busy.image
        _ = try await next.image
        #expect(fixture.server.requestCount(for: "/queued.jpg") == 0)
        #expect(fixture.server.requestCount(for: "/next.jpg") == 1)
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all) func cancellingTheSwiftTaskEndsWithCancellationError(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        let url = fixture.serveImage("/stalled.jpg", latency: .seconds(5))
        let waiter = Task { try await fixture.pipeline.response(for: ImageRequest(url: url)) }
        try await waitFor { fixture.server.inFlight == 1 }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        try await fixture.finish()
    }
}
