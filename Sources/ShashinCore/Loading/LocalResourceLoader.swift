import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Loads `file:` and `data:` URLs, for network loaders that hand those schemes on (the pipeline
/// reaches them only when `allowedSchemes` lists them). Any other scheme fails with
/// `unsupportedScheme`.
///
/// ```swift
/// let (data, _) = try await LocalResourceLoader().loadData(for: URLRequest(url: fileURL), maxBytes: 1 << 20) { _, _ in }
/// ```
public struct LocalResourceLoader: DataLoading {
    /// Creates the loader; it keeps no state.
    public init() {}

    public func loadData(for request: URLRequest, maxBytes: Int,
                         progress: @escaping @Sendable (Int64, Int64) -> Void) async throws -> (Data, URLResponse) {
        guard let url = request.url else { throw ImagePipelineError.invalidURL("") }
        switch url.scheme?.lowercased() {
        case "file": return try await Self.loadFile(url, maxBytes: maxBytes, progress: progress)
        case "data": return try Self.loadDataURL(url, maxBytes: maxBytes, progress: progress)
        case let scheme: throw ImagePipelineError.unsupportedScheme(scheme ?? "")
        }
    }

    static func loadFile(_ url: URL, maxBytes: Int,
                         progress: @Sendable (Int64, Int64) -> Void) async throws -> (Data, URLResponse) {
        // The file is read on a dispatch queue: a slow disk must not hold a thread of the pool.
        let data = try await offThePool { () throws -> Data in
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? nil
            if let size, size > maxBytes { throw ImagePipelineError.dataTooLarge(limit: maxBytes) }
            do { return try Data(contentsOf: url, options: .mappedIfSafe) } catch {
                throw LocalFile.urlError(for: error, path: url.path)
            }
        }
        guard data.count <= maxBytes else { throw ImagePipelineError.dataTooLarge(limit: maxBytes) }
        progress(Int64(data.count), Int64(data.count))
        let response = URLResponse(url: url, mimeType: nil, expectedContentLength: data.count, textEncodingName: nil)
        return (data, response)
    }

    /// The bytes of a `data:` URL (RFC 2397): base64 or percent-encoded.
    static func loadDataURL(_ url: URL, maxBytes: Int, progress: @Sendable (Int64, Int64) -> Void) throws -> (Data, URLResponse) {
        let text = url.absoluteString
        guard let comma = text.firstIndex(of: ","), text.lowercased().hasPrefix("data:") else {
            throw ImagePipelineError.invalidURL(String(text.prefix(64)))
        }
        let header = text[text.index(text.startIndex, offsetBy: 5)..<comma]
        let payload = String(text[text.index(after: comma)...])
        let parameters = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let data: Data?
        if parameters.last == "base64" {
            data = payload.removingPercentEncoding.flatMap { Data(base64Encoded: $0, options: .ignoreUnknownCharacters) }
        } else {
            data = payload.removingPercentEncoding.map { Data($0.utf8) }
        }
        guard let data else { throw ImagePipelineError.invalidURL(String(text.prefix(64))) }
        guard data.count <= maxBytes else { throw ImagePipelineError.dataTooLarge(limit: maxBytes) }
        progress(Int64(data.count), Int64(data.count))
        let mimeType = parameters.first.flatMap { $0.contains("/") ? $0 : nil } ?? "text/plain"
        return (data, URLResponse(url: url, mimeType: mimeType, expectedContentLength: data.count, textEncodingName: nil))
    }
}
