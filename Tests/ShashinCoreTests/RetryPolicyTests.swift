import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import ShashinCore

/// Which failures a `RetryPolicy` retries, and how long it waits: exponential backoff with full
/// jitter, `Retry-After` in seconds or as a date, the count and total-time limits.
@Suite("Retry policy: what is retried and how long the wait is")
struct RetryPolicyTests {
    static let transient: [any Error] = [
        ImagePipelineError.httpStatus(500), ImagePipelineError.httpStatus(502), ImagePipelineError.httpStatus(503),
        ImagePipelineError.httpStatus(504), ImagePipelineError.httpStatus(408),
        URLError.timedOut(seconds: 60, idle: true), URLError.timedOut(seconds: 300, idle: false),
        ImagePipelineError.truncatedData(expected: 100, received: 50),
        URLError(.networkConnectionLost), URLError(.cannotConnectToHost), URLError(.timedOut), URLError(.notConnectedToInternet),
        URLError(.dnsLookupFailed),
    ]

    static let permanent: [any Error] = [
        ImagePipelineError.httpStatus(400), ImagePipelineError.httpStatus(401), ImagePipelineError.httpStatus(403),
        ImagePipelineError.httpStatus(404), ImagePipelineError.httpStatus(410), ImagePipelineError.httpStatus(429),
        ImagePipelineError.unsupportedScheme("file"), ImagePipelineError.tooManyRedirects(limit: 5),
        ImagePipelineError.dataTooLarge(limit: 10), ImagePipelineError.emptyData, ImagePipelineError.invalidResponse(reason: "bad"),
        ImagePipelineError.decodingFailed(format: .jpeg, reason: "bad"),
        ImagePipelineError.destinationRefused(host: "a", address: "127.0.0.1"), ImagePipelineError.invalidURL("x"),
        URLError(.cancelled), URLError(.serverCertificateUntrusted), URLError(.cannotFindHost),
    ]

    @Test("transient failures are retried", arguments: transient)
    func transientIsRetried(error: any Error) {
        #expect(RetryPolicy.isTransient(error))
        #expect(RetryPolicy(random: { 1 }).delay(after: error, attempts: 1, elapsed: 0, retryAfter: nil) == 0.5)
    }

    @Test("other failures never are", arguments: permanent)
    func permanentIsNotRetried(error: any Error) {
        #expect(!RetryPolicy.isTransient(error))
        #expect(RetryPolicy().delay(after: error, attempts: 1, elapsed: 0, retryAfter: nil) == nil)
    }

    @Test func cancellationIsNeverRetried() {
        #expect(!RetryPolicy.isTransient(CancellationError()))
        #expect(RetryPolicy().delay(after: CancellationError(), attempts: 1, elapsed: 0, retryAfter: 1) == nil)
    }

    @Test func a429IsRetriedOnlyWithRetryAfter() {
        let policy = RetryPolicy()
        #expect(policy.delay(after: ImagePipelineError.httpStatus(429), attempts: 1, elapsed: 0, retryAfter: nil) == nil)
        #expect(policy.delay(after: ImagePipelineError.httpStatus(429), attempts: 1, elapsed: 0, retryAfter: 2) == 2)
    }

    @Test func backoffDoublesUpToTheCapAndJitterScalesIt() {
        let error = ImagePipelineError.httpStatus(503)
        let full = RetryPolicy(maxAttempts: 10, baseDelay: 0.5, maxDelay: 3, maxTotalTime: 100, random: { 1 })
        let waits = (1...6).map { full.delay(after: error, attempts: $0, elapsed: 0, retryAfter: nil) }
        #expect(waits == [0.5, 1, 2, 3, 3, 3])
        let quarter = RetryPolicy(maxAttempts: 10, baseDelay: 0.5, maxDelay: 3, maxTotalTime: 100, random: { 0.25 })
        #expect(quarter.delay(after: error, attempts: 3, elapsed: 0, retryAfter: nil) == 0.5)
        let none = RetryPolicy(maxAttempts: 10, random: { 0 })
        #expect(none.delay(after: error, attempts: 3, elapsed: 0, retryAfter: nil) == 0)
    }

    @Test func theCountAndTheTotalTimeEndRetries() {
        let error = ImagePipelineError.httpStatus(500)
        let policy = RetryPolicy(maxAttempts: 3, baseDelay: 1, maxTotalTime: 10, random: { 1 })
        #expect(policy.delay(after: error, attempts: 2, elapsed: 0, retryAfter: nil) == 2)
        #expect(policy.delay(after: error, attempts: 3, elapsed: 0, retryAfter: nil) == nil)
        #expect(policy.delay(after: error, attempts: 2, elapsed: 8, retryAfter: nil) == 2)
        #expect(policy.delay(after: error, attempts: 2, elapsed: 8.5, retryAfter: nil) == nil)
        #expect(RetryPolicy.never.delay(after: error, attempts: 1, elapsed: 0, retryAfter: nil) == nil)
    }

    @Test func aRetryAfterOverTheCapIsNotWaitedFor() {
        let policy = RetryPolicy(maxDelay: 30)
        #expect(policy.delay(after: ImagePipelineError.httpStatus(503), attempts: 1, elapsed: 0, retryAfter: 30) == 30)
        #expect(policy.delay(after: ImagePipelineError.httpStatus(503), attempts: 1, elapsed: 0, retryAfter: 31) == nil)
    }

    @Test("Retry-After in seconds, as a date, past, or unreadable")
    func retryAfterParsing() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        func parse(_ value: String?) -> TimeInterval? {
            let response = HTTPURLResponse(url: URL(string: "https://a.test/x")!, statusCode: 503, httpVersion: "HTTP/1.1",
                                           headerFields: value.map { ["Retry-After": $0] } ?? [:])
            return RetryPolicy.retryAfter(in: response, now: now)
        }
        #expect(parse("1") == 1)
        #expect(parse(" 120 ") == 120)
        #expect(parse("99999999999") == .infinity)
        #expect(parse(HTTPDateParser.format(now.addingTimeInterval(5))) == 5)
        #expect(parse(HTTPDateParser.format(now.addingTimeInterval(-5))) == 0)
        #expect(parse("soon") == nil)
        #expect(parse("-3") == nil)
        #expect(parse(nil) == nil)
        #expect(RetryPolicy.retryAfter(in: nil, now: now) == nil)
    }
}
