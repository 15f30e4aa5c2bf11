import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a loader leaves the response it refused for its status (a 503, a 429), for the pipeline
/// download waiting on it: its `Retry-After` says when to try again. The pipeline sets one for the
/// Swift task of each download attempt.
final class RefusedResponse: Sendable {
    /// The recorder of the attempt running in the current Swift task, if any.
    @TaskLocal static var current: RefusedResponse?

    private let captured = Locked<HTTPURLResponse?>(nil)

    /// The last response recorded.
    var response: HTTPURLResponse? { captured.current }

    func record(_ response: URLResponse) {
        guard let http = response as? HTTPURLResponse else { return }
        captured.withLock { $0 = http }
    }
}

extension RetryPolicy {
    /// For a `DataLoading` of your own: hands over the response it refuses for its status, before
    /// it throws `ImagePipelineError.httpStatus`, so that the pipeline can honour its
    /// `Retry-After` (a `429` is retried only with one). Anywhere but inside a pipeline download it
    /// does nothing. Call it from the Swift task that called `loadData`.
    ///
    /// ```swift
    /// guard (200..<300).contains(http.statusCode) else {
    ///     RetryPolicy.loaderDidRefuse(http)
    ///     throw ImagePipelineError.httpStatus(http.statusCode)
    /// }
    /// ```
    public static func loaderDidRefuse(_ response: URLResponse) {
        RefusedResponse.current?.record(response)
    }
}
