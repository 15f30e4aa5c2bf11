import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a loader leaves the bytes of a body that broke off, for the pipeline download that is
/// waiting on it. The pipeline sets one for the Swift task of each download.
final class InterruptedBody: Sendable {
    /// The collector of the download running in the current Swift task, if any.
    @TaskLocal static var current: InterruptedBody?

    private let captured = Locked<(response: HTTPURLResponse, data: Data)?>(nil)

    /// The last body recorded, with its response.
    var body: (response: HTTPURLResponse, data: Data)? { captured.current }

    /// Whether a body ended by `error` is worth resuming: a lost connection, a timeout, a
    /// cancellation; not a body refused for its size, its status or its framing.
    static func isResumable(after error: any Error) -> Bool {
        switch error {
        case ImagePipelineError.dataTooLarge, ImagePipelineError.httpStatus, ImagePipelineError.invalidResponse,
             ImagePipelineError.tooManyRedirects, ImagePipelineError.destinationRefused, ImagePipelineError.unsupportedScheme:
            false
        default:
            true
        }
    }

    func record(_ data: Data, response: URLResponse) {
        guard !data.isEmpty, let http = response as? HTTPURLResponse else { return }
        captured.withLock { $0 = (http, data) }
    }
}

extension ResumableData {
    /// For a `DataLoading` of your own: hands over the bytes of a body that ended before its end
    /// (connection lost, timeout, cancellation), with the response they belong to, before the
    /// loader throws. Inside a pipeline download that may be resumed, the pipeline keeps them
    /// when the response allows a resume; anywhere else this does nothing. Call it from the
    /// Swift task that called `loadData` or `loadResponse`.
    ///
    /// ```swift
    /// } catch {
    ///     ResumableData.loaderDidReceivePartialBody(received, response: response, endedBy: error)
    ///     throw error
    /// }
    /// ```
    /// - Parameter error: why the body ended; bodies refused for their size, status or framing
    ///   are not kept.
    public static func loaderDidReceivePartialBody(_ data: Data, response: URLResponse, endedBy error: any Error) {
        guard InterruptedBody.isResumable(after: error) else { return }
        InterruptedBody.current?.record(data, response: response)
    }
}
