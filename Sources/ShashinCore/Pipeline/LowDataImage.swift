import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The image a request shows instead of its own while the network is constrained: Low Data
/// Mode on Apple platforms, or the app's `NetworkConstraint` (a metered link, on any platform).
/// It is loaded from `source`, decoded at `thumbnail` (else the request's own) and processed by
/// the request's processors, and every cache keeps it under a key of its own, never the
/// request's `cacheKey`: a full-quality load later is not answered with it.
///
/// ```swift
/// var request = ImageRequest(url: photoURL)
/// request.lowDataImage = .url(smallURL, thumbnail: .init(maxPixelSize: 120))
/// ```
public struct LowDataImage: Sendable, CustomStringConvertible {
    /// Where the low-data bytes come from: a URL, or an app's closure (`ImageSource.data(id:_:)`).
    public var source: ImageSource
    /// The decode-time size of the low-data image; `nil` (default) keeps the request's `thumbnail`.
    public var thumbnail: ThumbnailOptions?

    /// Creates a low-data image loaded from `source`.
    public init(_ source: ImageSource, thumbnail: ThumbnailOptions? = nil) {
        self.source = source
        self.thumbnail = thumbnail
    }

    /// The image at `url`, decoded at `thumbnail` (else the request's own).
    public static func url(_ url: URL, thumbnail: ThumbnailOptions? = nil) -> LowDataImage {
        LowDataImage(.url(url), thumbnail: thumbnail)
    }

    /// The source, and the thumbnail when there is one, for logs.
    public var description: String {
        thumbnail.map { "\(source) \($0)" } ?? source.description
    }
}
