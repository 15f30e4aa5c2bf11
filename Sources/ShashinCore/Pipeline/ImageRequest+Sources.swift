import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ImageRequest {
    /// Creates a request for an image that is not at a URL: `data` returns its bytes (a Photos
    /// asset, a file in a bundle, a generated or decrypted image), and `id` names them. The
    /// memory and disk caches keep the image under `id`; requests with the same `id` (and the same
    /// cache policy) share one call of `data`, which runs on the network queue at their highest
    /// priority, in a Swift task that is cancelled when no request wants the image any more. The
    /// bytes are decoded and processed as any image's. What `data` throws fails the request as thrown.
    ///
    /// ```swift
    /// let request = ImageRequest(id: asset.localIdentifier, data: { try await asset.imageData() },
    ///                            thumbnail: .init(maxPixelSize: 300))
    /// ```
    public init(id: String, data: @escaping @Sendable () async throws -> Data, thumbnail: ThumbnailOptions? = nil,
                processors: [any ImageProcessing] = [], priority: Priority = .normal,
                cachePolicy: HTTPCachePolicy = .useProtocolCachePolicy, options: Options = []) {
        self.init(url: nil, thumbnail: thumbnail, processors: processors, priority: priority, cachePolicy: cachePolicy,
                  options: options)
        dataSource = ImageSource.DataSource(id: id, load: data)
        updateCacheKey() // an initializer runs no `didSet`
    }

    /// The source the request loads first: its data source, or its URL request.
    public var primarySource: ImageSource {
        dataSource.map { ImageSource(kind: .data($0)) } ?? ImageSource(kind: .url(urlRequest))
    }

    /// The primary source, then the alternative ones, in the order they are tried.
    var sources: [ImageSource] { [primarySource] + alternativeSources }
}
