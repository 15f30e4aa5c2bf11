import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Loads the bytes of a request: the pipeline's network stage. Swap it to use another HTTP client.
///
/// An implementation reports progress, stops at `maxBytes` with
/// `ImagePipelineError.dataTooLarge`, maps a status outside 200–299 to `.httpStatus`, and throws
/// `CancellationError` promptly when the calling Swift `Task` is cancelled.
public protocol DataLoading: Sendable {
    /// Loads the body of `request`.
    /// - Parameters:
    ///   - maxBytes: the largest body accepted.
    ///   - progress: called with bytes received so far and the expected total (0 when unknown).
    func loadData(for request: URLRequest, maxBytes: Int,
                  progress: @escaping @Sendable (_ received: Int64, _ expected: Int64) -> Void) async throws -> (Data, URLResponse)
}
