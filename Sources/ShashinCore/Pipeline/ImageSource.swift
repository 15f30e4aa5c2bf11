import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where an image's bytes come from: a URL, a local file, or a closure of the app's that returns
/// them (a Photos asset, a generated or decrypted image). A request has one source
/// (`ImageRequest.source`) and may carry `alternativeSources`, tried in order when the one
/// before fails.
///
/// ```swift
/// var request = ImageRequest(url: cdnURL)
/// request.alternativeSources = [.url(mirrorURL), .data(id: "placeholder-42") { try await vault.decrypt("42") }]
/// ```
public struct ImageSource: Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        case url(URLRequest)
        case data(DataSource)
    }

    /// An identifier and the closure that returns the bytes it names.
    struct DataSource: Sendable {
        let id: String
        let load: @Sendable () async throws -> Data
        /// Whether the bytes are kept in the disk cache: not a local file's, which is on disk already.
        var isStoredOnDisk = true
    }

    let kind: Kind

    /// The bytes at `url`, loaded as the request's own URL is (the configuration's loader,
    /// `allowedSchemes`, the disk cache under its URL, retries).
    public static func url(_ url: URL) -> ImageSource { ImageSource(kind: .url(URLRequest(url: url))) }

    /// The response to `urlRequest`, with its headers, method and timeout.
    public static func urlRequest(_ urlRequest: URLRequest) -> ImageSource { ImageSource(kind: .url(urlRequest)) }

    /// The bytes `load` returns, known by `id` in the caches: the disk cache keeps them under the
    /// identifier, and identical identifiers share one call. The call runs in a Swift task that is
    /// cancelled when no request wants the image any more; what it throws fails the request as
    /// thrown (cancellation as `CancellationError`).
    public static func data(id: String, _ load: @escaping @Sendable () async throws -> Data) -> ImageSource {
        ImageSource(kind: .data(DataSource(id: id, load: load)))
    }

    /// The bytes of the local file at `fileURL`, read off the caller's thread. Explicit, so a
    /// URL string from a user never reads a local file: `ImageRequest(url:)` with a `file:` URL is
    /// refused unless the configuration's `allowedSchemes` has `file`. The file is named by its
    /// path in the memory cache and never copied into the disk cache. A missing file fails with
    /// `URLError(.fileDoesNotExist)`; one larger than the configuration's `maxResponseBytes` with
    /// `dataTooLarge`.
    ///
    /// ```swift
    /// let request = ImageRequest(source: .file(documents.appendingPathComponent("avatar.jpg")))
    /// ```
    public static func file(_ fileURL: URL) -> ImageSource {
        let path = fileURL.standardizedFileURL.path
        let source = DataSource(id: "file:" + path, load: { try await LocalFile.read(path) }, isStoredOnDisk: false)
        return ImageSource(kind: .data(source))
    }

    /// The URL, for a URL source.
    public var url: URL? {
        if case .url(let request) = kind { request.url } else { nil }
    }

    /// The identifier, for a data source (`file:` and the path, for a local file).
    public var dataID: String? {
        if case .data(let source) = kind { source.id } else { nil }
    }

    /// The URL, or `id:` and the identifier of a data source: what names the source in keys and logs.
    public var description: String {
        switch kind {
        case .url(let request): request.url?.absoluteString ?? ""
        case .data(let source): "id:" + source.id
        }
    }
}
