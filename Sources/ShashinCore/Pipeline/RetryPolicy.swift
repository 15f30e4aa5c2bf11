import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// When and how soon a download that failed for a passing reason is tried again.
///
/// Retried: a connection that failed or broke (a `URLError` of a connection: refused, lost, no
/// network, a host that did not resolve; `truncatedData`), a timeout, `5xx`, `408`, and `429`
/// when it says `Retry-After`. Never retried: other `4xx`, cancellation, a redirect refused, a
/// body too large, an invalid response, anything after the bytes arrived (decoding,
/// processing) — unless the policy's `shouldRetry` decides otherwise. Waits grow exponentially with full
/// jitter (a random wait between 0 and `baseDelay × 2^(retry − 1)`, at most `maxDelay`); a
/// `Retry-After` (seconds or an HTTP date) is waited exactly, and one longer than `maxDelay` is
/// not waited for: the download fails with its status. No retry starts whose wait would end more
/// than `maxTotalTime` after the first attempt began. A retry continues from the bytes the failed
/// attempt received when the response allows resuming (`ImagePipeline.Configuration.resumableData`).
///
/// ```swift
/// configuration.retryPolicy = RetryPolicy(maxAttempts: 4, baseDelay: 0.5)
/// request.retryPolicy = .never               // this one request fails at the first error
/// ```
public struct RetryPolicy: Sendable {
    /// The most attempts in all, the first included; `1` never retries. Default 3.
    public var maxAttempts: Int
    /// The upper bound of the first retry's random wait, in seconds; each retry doubles it.
    /// Default 0.5.
    public var baseDelay: TimeInterval
    /// The longest single wait, in seconds, jittered or asked by `Retry-After`. Default 30.
    public var maxDelay: TimeInterval
    /// Seconds from the first attempt past which no retry's wait may end. Default 60.
    public var maxTotalTime: TimeInterval
    /// Returns a random number in `0...1` for the jitter; default the system's generator.
    /// Inject one to make the waits predictable.
    public var random: @Sendable () -> Double
    /// What tells the time and waits between attempts; default `SystemRetryClock()`. Tests
    /// inject one that never sleeps.
    public var clock: any RetryClock
    /// The app's decision after each failed download attempt while attempts remain (`maxAttempts`
    /// counts every attempt, decided or not): `.useDefault` follows the rules above, `.retry`
    /// tries again after a wait of its choosing (sending the request through the configuration's
    /// `requestModifier` again, so a header it sets — a refreshed token — is the new one), and
    /// `.fail` ends the download with the error. It may suspend; the download waits for it,
    /// holding no download slot. Default `nil`: the rules above decide alone.
    ///
    /// ```swift
    /// var policy = RetryPolicy(maxAttempts: 2)
    /// policy.shouldRetry = { failure in
    ///     guard failure.statusCode == 401 else { return .useDefault }
    ///     await session.refreshToken()        // the request modifier reads the new token
    ///     return .retry()
    /// }
    /// configuration.retryPolicy = policy
    /// ```
    public var shouldRetry: (@Sendable (Failure) async -> Decision)?

    /// A failed download attempt, as `shouldRetry` sees it.
    public struct Failure: Sendable {
        /// Why it failed: an `ImagePipelineError` (`httpStatus(401)`, …) or a `URLError`.
        public let error: any Error
        /// Which attempt failed: 1 for the first.
        public let attempt: Int
        /// What it sent, after the request modifier.
        public let request: URLRequest
        /// The response refused for its status (a 401, a 503 with `Retry-After`), when there was one.
        public let response: HTTPURLResponse?
        /// The wait the rules would retry after; `nil` when they would not retry.
        public let defaultDelay: TimeInterval?

        /// The HTTP status the attempt failed with (`httpStatus`, or the refused response's); `nil`
        /// for a failure without one (a lost connection, a timeout).
        public var statusCode: Int? {
            if case .httpStatus(let status)? = error as? ImagePipelineError { return status }
            return response?.statusCode
        }
    }

    /// What `shouldRetry` decides for a failed attempt.
    public enum Decision: Sendable, Hashable {
        /// What the policy's rules say (retry a passing failure after its backoff, else fail).
        case useDefault
        /// Try again after `delay` seconds (default none), whatever the error.
        case retry(after: TimeInterval = 0)
        /// End the download with the error.
        case fail
    }

    /// A policy; every parameter has the default its property documents.
    public init(maxAttempts: Int = 3, baseDelay: TimeInterval = 0.5, maxDelay: TimeInterval = 30,
                maxTotalTime: TimeInterval = 60, random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) },
                clock: any RetryClock = SystemRetryClock()) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(0, maxDelay)
        self.maxTotalTime = max(0, maxTotalTime)
        self.random = random
        self.clock = clock
    }

    /// One attempt, no retry: for a request that must fail at its first error.
    public static let never = RetryPolicy(maxAttempts: 1)

    /// Whether `error` (the pipeline's error for a failed attempt) is worth another: see the type.
    /// `retryAfter` is the wait the failed response asked for, if any; a `429` is retried only
    /// with one.
    public static func isTransient(_ error: any Error, retryAfter: TimeInterval? = nil) -> Bool {
        if let error = error as? URLError { return transientCodes.contains(error.code.rawValue) }
        guard let error = error as? ImagePipelineError else { return false }
        switch error {
        case .truncatedData:
            return true
        case .httpStatus(let status):
            if status == 429 { return retryAfter != nil }
            return status == 408 || (500...599).contains(status)
        default:
            return false
        }
    }

    /// URL error codes of a connection that could not be made or broke, and may work next time.
    private static let transientCodes: Set<Int> = [
        URLError.timedOut.rawValue, URLError.cannotConnectToHost.rawValue, URLError.networkConnectionLost.rawValue,
        URLError.notConnectedToInternet.rawValue, URLError.dnsLookupFailed.rawValue,
    ]

    /// The wait before attempt `attempts + 1`, after `attempts` failed ones (the last with
    /// `error`), `elapsed` seconds after the first began; `nil` when there is to be none.
    func delay(after error: any Error, attempts: Int, elapsed: TimeInterval, retryAfter: TimeInterval?) -> TimeInterval? {
        guard attempts < maxAttempts, Self.isTransient(error, retryAfter: retryAfter) else { return nil }
        let wait: TimeInterval
        if let retryAfter {
            guard retryAfter <= maxDelay else { return nil }
            wait = max(0, retryAfter)
        } else {
            let ceiling = min(maxDelay, baseDelay * pow(2, Double(attempts - 1)))
            wait = ceiling * min(1, max(0, random()))
        }
        guard elapsed + wait <= maxTotalTime else { return nil }
        return wait
    }

    /// The wait a response's `Retry-After` asks for, in seconds from `now`: a number of seconds,
    /// or an HTTP date (a date already past asks for none). `nil` without a readable one.
    static func retryAfter(in response: HTTPURLResponse?, now: Date) -> TimeInterval? {
        guard let value = response?.value(forHTTPHeaderField: "Retry-After")?.trimmingCharacters(in: .whitespaces),
              !value.isEmpty else { return nil }
        if value.allSatisfy(\.isASCIIDigit) {
            return value.count <= 9 ? TimeInterval(value) : .infinity
        }
        guard let date = HTTPDateParser.parse(value, now: now) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}

private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
