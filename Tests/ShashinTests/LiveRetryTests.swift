import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageServer
import Shashin
@testable import ShashinCore
import Testing

/// Retrying over real HTTP (`RetryPolicy`): dropped connections resume on the next attempt,
/// `Retry-After` is waited by the injected clock, permanent failures fail at once, and a task
/// cancelled in its wait ends at once without another request.
@Suite("Over HTTP: retrying transient failures")
struct LiveRetryTests {
    static let generator = ImageGenerator()

    /// A PNG of about 1.5 MB, large enough for a drop at half its body to lose a lot.
    static func image() async throws -> Data {
        try await generator.data(for: ImageSpec(format: .png, width: 1200, height: 900, seed: 31))
    }

    static func start(_ loader: LoaderFactory, policy: RetryPolicy) async throws -> LiveFixture {
        try await LiveFixture.start(loader) { $0.retryPolicy = policy }
    }

    /// The `retrying` events the task sent (the stream replays them after the end).
    static func retries(of task: ImageTask) async -> [ImageTask.Retry] {
        var retries: [ImageTask.Retry] = []
        for await event in task.events { if case .retrying(let retry) = event { retries.append(retry) } }
        return retries
    }

    /// Answers with `status` and `headers` to the first `failures` requests, then with `image`.
    static func failing(_ failures: Int, status: Int, headers: [String: String] = [:], then image: Data,
                        _ server: ImageServer, _ path: String) -> URL {
        server.setRoute(path) { [weak server] _ in
            // The request being answered is already counted.
            if server?.requestCount(for: path) ?? 0 <= failures {
                var script = RouteScript.status(status, text: "try later")
                script.headers.merge(headers) { $1 }
                return script
            }
            return RouteScript.data(image, contentType: "image/png")
        }
        return server.url(path)
    }

    @Test("a connection dropped twice, then served, succeeds on the third attempt sending at most 1.05× the image",
          arguments: LoaderFactory.all)
    func droppedTwiceThenServed(loader: LoaderFactory) async throws {
        let clock = ManualRetryClock()
        let fixture = try await Self.start(loader, policy: RetryPolicy(maxAttempts: 3, random: { 0 }, clock: clock))
        let image = try await Self.image()
        let path = "/dropping.png"
        fixture.server.setRoute(path) { [weak server = fixture.server] _ in
            var script = RouteScript.data(image, contentType: "image/png", headers: ["ETag": "\"r1\""])
            script.servesRanges = true
            if server?.requestCount(for: path) ?? 0 <= 2 { script.fault = .dropConnectionMidBody }
            return script
        }
        let task = fixture.task(ImageRequest(url: fixture.server.url(path)))
        let response = try await task.response
        #expect(response.cacheType == .none)
        #expect(response.timings.attempts == 3)
        #expect(response.image.testBitmap.width == 1200)
        #expect(fixture.server.requestCount(for: path) == 3)
        // Each retry asked for the bytes after those it held, and got them.
        #expect(fixture.server.responseCount(for: path, status: 206) == 2)
        #expect(response.resumedFromByte ?? 0 > image.count / 2)
        try await waitFor { fixture.server.inFlight == 0 }
        #expect(Double(fixture.server.bytesSent(for: path)) <= 1.05 * Double(image.count))
        let retries = await Self.retries(of: task)
        #expect(retries.map(\.attempt) == [2, 3])
        #expect(retries.allSatisfy { RetryPolicy.isTransient($0.reason) && $0.delay == 0 && !$0.isServerDelay })
        #expect(clock.requested == [0, 0])
        try await fixture.finish()
    }

    enum RetryAfterForm: String, CaseIterable, CustomTestStringConvertible {
        case seconds, httpDate
        var testDescription: String { rawValue }
    }

    @Test("a 503 with Retry-After of one second waits a second of the injected clock",
          arguments: LoaderFactory.all, RetryAfterForm.allCases)
    func retryAfterIsWaited(loader: LoaderFactory, form: RetryAfterForm) async throws {
        let clock = ManualRetryClock()
        // Jitter would wait 10 s at most: the 1 s below is the server's.
        let fixture = try await Self.start(loader, policy: RetryPolicy(baseDelay: 10, random: { 1 }, clock: clock))
        let image = try await Self.image()
        let value = form == .seconds ? "1" : HTTPDate.format(clock.now().addingTimeInterval(1))
        let url = Self.failing(1, status: 503, headers: ["Retry-After": value], then: image, fixture.server, "/busy.png")
        let start = clock.now()
        let task = fixture.task(ImageRequest(url: url))
        try await waitFor { clock.sleeperCount == 1 }
        #expect(clock.requested == [1])
        clock.advance(by: 0.999)
        #expect(clock.sleeperCount == 1)
        #expect(fixture.server.requestCount(for: "/busy.png") == 1)
        clock.advance(by: 0.001)
        let response = try await task.response
        #expect(response.timings.attempts == 2)
        #expect(clock.now().timeIntervalSince(start) == 1)
        #expect(fixture.server.requestCount(for: "/busy.png") == 2)
        let retries = await Self.retries(of: task)
        #expect(retries.count == 1)
        #expect(retries.first?.isServerDelay == true && retries.first?.delay == 1)
        #expect((retries.first?.reason as? ImagePipelineError) == .httpStatus(503))
        try await fixture.finish()
    }

    @Test("a 404, and a 429 without Retry-After, fail at the first attempt", arguments: LoaderFactory.all, [404, 429])
    func permanentStatusIsNotRetried(loader: LoaderFactory, status: Int) async throws {
        let clock = ManualRetryClock()
        let fixture = try await Self.start(loader, policy: RetryPolicy(maxAttempts: 5, clock: clock))
        let image = try await Self.image()
        let url = Self.failing(1, status: status, then: image, fixture.server, "/missing.png")
        let task = fixture.task(ImageRequest(url: url))
        let error = await fixture.error(of: task)
        #expect((error as? ImagePipelineError) == .httpStatus(status))
        #expect(fixture.server.requestCount(for: "/missing.png") == 1)
        #expect(clock.requested.isEmpty)
        #expect(await Self.retries(of: task).isEmpty)
        try await fixture.finish()
    }

    @Test("a task cancelled while it waits to retry has ended when cancel() returns, and no request follows",
          arguments: LoaderFactory.all)
    func cancelledInBackoffEndsAtOnce(loader: LoaderFactory) async throws {
        let clock = ManualRetryClock()
        let fixture = try await Self.start(loader, policy: RetryPolicy(baseDelay: 10, random: { 1 }, clock: clock))
        fixture.server.setRoute("/down.png", .status(500, text: "down"))
        let task = fixture.task(ImageRequest(url: fixture.server.url("/down.png")))
        try await waitFor { clock.sleeperCount == 1 }
        // Read with no suspension between: the task ends inside cancel(), not at the next wake-up.
        task.cancel()
        #expect(task.isFinished)
        #expect(await fixture.error(of: task) is CancellationError)
        // The wait itself is cancelled, and the job leaves the graph.
        try await waitFor { clock.cancelledCount == 1 && clock.sleeperCount == 0 }
        try await waitFor { fixture.pipeline.graph.jobCount == 0 }
        clock.advance(by: 60)
        #expect(fixture.server.requestCount(for: "/down.png") == 1)
        try await fixture.finish()
    }

    @Test("the wait holds no download slot, and a request joining it shares the next attempt",
          arguments: LoaderFactory.all)
    func backoffFreesTheSlotAndCoalesces(loader: LoaderFactory) async throws {
        let clock = ManualRetryClock()
        let fixture = try await LiveFixture.start(loader) {
            $0.retryPolicy = RetryPolicy(baseDelay: 2, random: { 1 }, clock: clock)
            $0.maxConcurrentDownloads = 1
        }
        let image = try await Self.image()
        let url = Self.failing(1, status: 502, then: image, fixture.server, "/flaky.png")
        let first = fixture.task(ImageRequest(url: url))
        try await waitFor { clock.sleeperCount == 1 }
        // With the only slot free, another image loads while the first waits.
        let other = fixture.serveImage("/other.jpg")
        _ = try await fixture.pipeline.response(for: ImageRequest(url: other))
        let second = fixture.task(ImageRequest(url: url, priority: .high))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: 2)
        let responses = try await [first.response, second.response]
        #expect(responses.allSatisfy { $0.timings.attempts == 2 })
        #expect(fixture.server.requestCount(for: "/flaky.png") == 2)
        #expect(await Self.retries(of: second).isEmpty) // it joined after the retry was announced
        try await fixture.finish()
    }
}
