import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Loads the bytes of a request: the pipeline's network stage. Swap it to use another HTTP client.
///
/// An implementation reports progress, stops at `maxBytes` with
/// `ImagePipelineError.dataTooLarge`, maps a status outside 200–299 to `.httpStatus`, and throws
/// `CancellationError` promptly when the calling Swift `Task` is cancelled. A loader that can,
/// hands over the bytes of a body that broke off with
/// `ResumableData.loaderDidReceivePartialBody(_:response:endedBy:)` before it throws, so that the
/// pipeline can resume the download (both built-in loaders do).
public protocol DataLoading: Sendable {
    /// Loads the body of `request`.
    /// - Parameters:
    ///   - maxBytes: the largest body accepted.
    ///   - progress: called with bytes received so far and the expected total (0 when unknown), on
    ///     whatever thread the loader reads on (a network thread): it must return quickly and never
    ///     wait for other work.
    func loadData(for request: URLRequest, maxBytes: Int,
                  progress: @escaping @Sendable (_ received: Int64, _ expected: Int64) -> Void) async throws -> (Data, URLResponse)

    /// Loads the response to `request` whatever its status — a 304 to a conditional request, a
    /// 404 with its body — which is what an HTTP cache needs. Limits and cancellation as in
    /// `loadData`.
    ///
    /// The default implementation calls `loadData`: a loader that refuses other statuses then
    /// still answers a conditional request, with a bare 304 made from its `httpStatus(304)` error.
    func loadResponse(for request: URLRequest, maxBytes: Int,
                      progress: @escaping @Sendable (_ received: Int64, _ expected: Int64) -> Void) async throws -> (Data, URLResponse)
}

extension DataLoading {
    public func loadResponse(for request: URLRequest, maxBytes: Int,
                             progress: @escaping @Sendable (_ received: Int64, _ expected: Int64) -> Void) async throws -> (Data, URLResponse) {
        do {
            return try await loadData(for: request, maxBytes: maxBytes, progress: progress)
        } catch ImagePipelineError.httpStatus(304) {
            guard let url = request.url,
                  let response = HTTPURLResponse(url: url, statusCode: 304, httpVersion: "HTTP/1.1", headerFields: [:])
            else { throw ImagePipelineError.httpStatus(304) }
            return (Data(), response)
        }
    }
}
