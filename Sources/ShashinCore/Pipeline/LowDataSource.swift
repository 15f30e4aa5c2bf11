import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a request loads instead of its own source while the network is constrained: Low Data
/// Mode on Apple platforms, or the app's `NetworkConstraint` (a metered link, on any platform).
/// The low-data image is decoded at `thumbnail` (else the request's own) and processed by the
/// request's processors, and every cache keeps it under a key of its own, never the request's
/// `cacheKey`: a full-quality load later is not answered with it.
///
/// ```swift
/// var request = ImageRequest(url: photoURL)
/// request.lowDataSource = .url(smallURL, thumbnail: .init(maxPixelSize: 120))
/// ```
public struct LowDataSource: Sendable, CustomStringConvertible {
    /// Where the low-data bytes come from: a URL, or an app's closure (`ImageSource.data(id:_:)`).
    public var source: ImageSource
    /// The decode-time size of the low-data image; `nil` (default) keeps the request's `thumbnail`.
    public var thumbnail: ThumbnailOptions?

    /// Creates a low-data source.
    public init(_ source: ImageSource, thumbnail: ThumbnailOptions? = nil) {
        self.source = source
        self.thumbnail = thumbnail
    }

    /// The image at `url`, decoded at `thumbnail` (else the request's own).
    public static func url(_ url: URL, thumbnail: ThumbnailOptions? = nil) -> LowDataSource {
        LowDataSource(.url(url), thumbnail: thumbnail)
    }

    /// The source, and the thumbnail when there is one, for logs.
    public var description: String {
        thumbnail.map { "\(source) \($0)" } ?? source.description
    }
}
