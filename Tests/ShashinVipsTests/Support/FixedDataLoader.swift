// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Shashin

/// Serves fixed bytes per URL with status 200 and `headers`, and 404 for any other URL, with no
/// network: for tests about what the pipeline does with the bytes.
struct FixedDataLoader: DataLoading {
    let bodies: [URL: Data]
    /// The response's header fields; `["Cache-Control": "max-age=600"]` makes it cacheable.
    var headers: [String: String] = [:]

    func loadData(for request: URLRequest, maxBytes: Int,
                  progress: @escaping @Sendable (Int64, Int64) -> Void) async throws -> (Data, URLResponse) {
        let url = request.url!
        guard let body = bodies[url] else { throw ImagePipelineError.httpStatus(404) }
        return (body, HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: headers)!)
    }
}
#endif
