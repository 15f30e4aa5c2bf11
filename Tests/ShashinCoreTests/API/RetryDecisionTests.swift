import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import ShashinCore

/// The app's retry decision (`RetryPolicy.shouldRetry`): asked after each failed attempt, it can
/// retry what the rules would not (a 401 after refreshing a token, the request modifier run again
/// for the new header), refuse what they would, or leave it to them.
@Suite("Retry decisions: the app decides per failure")
struct RetryDecisionTests {
    static let url = URL(string: "https://images.test/private.timg")!

    /// A pipeline whose request modifier signs with `token`'s current value, over `loader`.
    func pipeline(_ loader: ScriptedHTTPLoader, token: Locked<String>, policy: RetryPolicy) -> ImagePipeline {
        var configuration = ImagePipeline.Configuration(decoder: TestDecoder())
        configuration.dataLoader = loader
        configuration.memoryCache = nil
        configuration.retryPolicy = policy
        configuration.requestModifier = { request in
            var request = request
            request.setValue("Bearer \(token.current)", forHTTPHeaderField: "Authorization")
            return request
        }
        return ImagePipeline(configuration: configuration)
    }

    @Test func a401RefreshesTheTokenAndRetriesOnceWithTheNewHeader() async throws {
        let image = TestImages.encode(width: 2, height: 2, fill: 5)
        let loader = ScriptedHTTPLoader { request in
            request.value(forHTTPHeaderField: "Authorization") == "Bearer fresh" ? .init(body: image) : .init(status: 401)
        }
        let token = Locked("stale")
        let asked = Locked<[RetryPolicy.Failure]>([])
        var policy = RetryPolicy(maxAttempts: 2, clock: ImmediateRetryClock())
        policy.shouldRetry = { failure in
            asked.withLock { $0.append(failure) }
            guard failure.statusCode == 401 else { return .useDefault }
            token.withLock { $0 = "fresh" } // the app's refresh
            return .retry()
        }
        let response = try await pipeline(loader, token: token, policy: policy).response(for: ImageRequest(url: Self.url))
        #expect(response.image.testBitmap.pixels[0] == 5 && response.timings.attempts == 2)
        #expect(loader.requests.map { $0.value(forHTTPHeaderField: "Authorization") } == ["Bearer stale", "Bearer fresh"])
        let failure = try #require(asked.current.first)
        #expect(asked.current.count == 1 && failure.attempt == 1 && failure.defaultDelay == nil)
        #expect(failure.error as? ImagePipelineError == .httpStatus(401))
        #expect(failure.request.value(forHTTPHeaderField: "Authorization") == "Bearer stale")
    }

    @Test func theAttemptLimitHoldsWhateverTheDecision() async throws {
        let loader = ScriptedHTTPLoader { _ in .init(status: 401) }
        var policy = RetryPolicy(maxAttempts: 3, clock: ImmediateRetryClock())
        policy.shouldRetry = { _ in .retry() }
        await #expect(throws: ImagePipelineError.httpStatus(401)) {
            try await pipeline(loader, token: Locked("t"), policy: policy).response(for: ImageRequest(url: Self.url))
        }
        #expect(loader.requests.count == 3)
    }

    @Test func failEndsAFailureTheRulesWouldRetryAndUseDefaultFollowsThem() async throws {
        let loader = ScriptedHTTPLoader { _ in .init(status: 503) }
        var refusing = RetryPolicy(maxAttempts: 3, clock: ImmediateRetryClock())
        refusing.shouldRetry = { failure in failure.defaultDelay == nil ? .useDefault : .fail }
        await #expect(throws: ImagePipelineError.httpStatus(503)) {
            try await pipeline(loader, token: Locked("t"), policy: refusing).response(for: ImageRequest(url: Self.url))
        }
        #expect(loader.requests.count == 1, "503 is retried by the rules; the app said no")

        let defaults = ScriptedHTTPLoader { _ in .init(status: 503) }
        var following = RetryPolicy(maxAttempts: 3, clock: ImmediateRetryClock())
        following.shouldRetry = { _ in .useDefault }
        await #expect(throws: ImagePipelineError.httpStatus(503)) {
            try await pipeline(defaults, token: Locked("t"), policy: following).response(for: ImageRequest(url: Self.url))
        }
        #expect(defaults.requests.count == 3, "the rules retry a 503 until the attempts run out")
    }
}
