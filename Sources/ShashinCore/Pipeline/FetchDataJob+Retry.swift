import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One download's attempts, on `GraphActor`: how many were made, when the first began, the
/// request they send, and the wait before the next one.
struct DownloadRetry {
    /// Attempts begun so far.
    var attempts = 0
    /// When the first attempt began, by the policy's clock (`RetryPolicy.maxTotalTime`).
    var firstAttemptAt: Date?
    /// The request the attempts send, after the request modifier: a retry does not run it again.
    var urlRequest: URLRequest?
    /// The wait before the next attempt; cancelled with the job.
    var backoff: Task<Void, Never>?

    /// Counts an attempt that begins; returns its number (1 for the first).
    mutating func beginAttempt(policy: RetryPolicy?) -> Int {
        attempts += 1
        if firstAttemptAt == nil, let policy { firstAttemptAt = policy.clock.now() }
        return attempts
    }
}

/// Retrying (`RetryPolicy`): a failed attempt frees its network slot first; the job then waits,
/// still in the graph, so identical requests keep joining it and a priority change reaches the
/// next attempt's place in the queue. When the wait ends the job plans again from its request
/// (the disk cache, then the network), and the download resumes from the bytes the failed
/// attempts kept (`FetchDataJob+Resume`). Cancelling the job cancels the wait.
extension FetchDataJob {
    /// The policy this download follows: its request's, else the pipeline's.
    nonisolated var retryPolicy: RetryPolicy? { request.retryPolicy ?? graph.configuration.retryPolicy }

    /// Schedules the next attempt after a failed one when the policy allows it, telling the
    /// subscribers; `false` when the job is to end with `error`. `refused` is the response
    /// refused for its status, if any (its `Retry-After`).
    func retryAfterFailure(_ error: any Error, refused: HTTPURLResponse?) -> Bool {
        guard !isDisposed, let policy = retryPolicy, retry.attempts < policy.maxAttempts,
              let urlRequest = retry.urlRequest else { return false }
        let now = policy.clock.now()
        let retryAfter = RetryPolicy.retryAfter(in: refused, now: now)
        let elapsed = now.timeIntervalSince(retry.firstAttemptAt ?? now)
        let delay = policy.delay(after: error, attempts: retry.attempts, elapsed: elapsed, retryAfter: retryAfter)
        if let shouldRetry = policy.shouldRetry {
            let failure = RetryPolicy.Failure(error: error, attempt: retry.attempts, request: urlRequest, response: refused,
                                              defaultDelay: delay)
            retry.backoff = Self.decide(failure, with: shouldRetry) { [weak self] decision in
                guard let self, !isDisposed else { return }
                retry.backoff = nil
                switch decision {
                case .useDefault:
                    guard let delay else { return finish(.failure(error)) }
                    scheduleRetry(after: delay, of: error, urlRequest: urlRequest, isServerDelay: retryAfter != nil, policy: policy)
                case .retry(let after):
                    scheduleRetry(after: max(0, after), of: error, urlRequest: nil, isServerDelay: false, policy: policy)
                case .fail:
                    finish(.failure(error))
                }
            }
            return true
        }
        guard let delay else { return false }
        scheduleRetry(after: delay, of: error, urlRequest: urlRequest, isServerDelay: retryAfter != nil, policy: policy)
        return true
    }

    /// Tells the subscribers, waits `delay`, then sends the next attempt: `urlRequest` again, or,
    /// without one (a retry the app's `shouldRetry` asked for), the source's request through the
    /// request modifier once more, so a header it sets (a refreshed token) is the new one.
    private func scheduleRetry(after delay: TimeInterval, of error: any Error, urlRequest: URLRequest?, isServerDelay: Bool,
                               policy: RetryPolicy) {
        send(retry: ImageTask.Retry(attempt: retry.attempts + 1, reason: error, delay: delay, isServerDelay: isServerDelay))
        retry.backoff = Self.wait(delay, on: policy.clock) { [weak self] in
            guard let self, !isDisposed else { return }
            retry.backoff = nil
            if let urlRequest {
                plan(urlRequest, enqueuedAt: monotonicNow())
            } else if case .url(let sourceRequest) = request.sources[sourceIndex].kind {
                start(sourceRequest)
            }
        }
    }

    /// Asks the app's `shouldRetry` on the Swift pool (its code may suspend: refresh a token),
    /// then runs `next` with its decision on the actor, unless the task was cancelled first.
    private nonisolated static func decide(_ failure: RetryPolicy.Failure,
                                           with shouldRetry: @escaping @Sendable (RetryPolicy.Failure) async -> RetryPolicy.Decision,
                                           then next: @escaping @GraphActor @Sendable (RetryPolicy.Decision) -> Void) -> Task<Void, Never> {
        Task {
            let decision = await shouldRetry(failure)
            guard !Task.isCancelled else { return }
            GraphActor.async { next(decision) }
        }
    }

    /// Waits `delay` on `clock` in a task on the Swift pool (not the graph's actor: the clock is
    /// the app's code), then runs `next` on the actor, unless the task was cancelled first.
    private nonisolated static func wait(_ delay: TimeInterval, on clock: any RetryClock,
                                         then next: @escaping @GraphActor @Sendable () -> Void) -> Task<Void, Never> {
        Task {
            do { try await clock.sleep(for: delay) } catch { return }
            guard !Task.isCancelled else { return }
            GraphActor.async(next)
        }
    }
}
