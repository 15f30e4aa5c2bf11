import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A loaded image and where it came from.
public struct ImageResponse {
    /// The decoded (and processed) image.
    public let image: PlatformImage
    /// The request that produced it.
    public let request: ImageRequest
    /// Where the image came from.
    public let source: Source
    /// The HTTP response, when the image came over the network.
    public let urlResponse: URLResponse?
    /// Whether this is a lower-quality preview of the final image, decoded from the part of a
    /// progressive JPEG received so far (`ImageTask.previews`); `false` for the final image.
    public let isPreview: Bool
    /// How long each stage took.
    public let timings: ImageTimings
    /// The byte the download resumed from when it continued the kept start of an earlier one
    /// that ended early (see `ImagePipeline.Configuration.resumableData`); `nil` otherwise.
    public let resumedFromByte: Int?
    /// The source that made the image: the request's primary (`ImageRequest.primarySource`), or
    /// the one of its `alternativeSources` that loaded when those before it failed. A memory-cache
    /// or disk hit is always the primary's image: an alternative's is never kept under the
    /// request's key.
    public let imageSource: ImageSource
    /// Whether the image is the request's low-data one (`ImageRequest.lowDataSource`), loaded
    /// because the network was constrained; `imageSource` is then the low-data source.
    public let isLowData: Bool
    /// For an animated GIF or WebP (whose first frame is `image`): the original data and frame
    /// count; `nil` for still images.
    public var animation: ImageAnimation? { image.animation }

    /// Where an image came from.
    public enum Source: String, Sendable, Hashable, CaseIterable {
        /// The memory cache: no work was done.
        case memory
        /// The disk cache: decoded from stored bytes, no network.
        case disk
        /// Downloaded.
        case network
        /// A stored copy the server confirmed with 304 Not Modified.
        case revalidated
        /// Returned by the closure of a data source (`ImageRequest(id:data:)`, `ImageSource.data`).
        case dataSource
    }

    /// Creates a response; `imageSource` defaults to the request's primary source.
    public init(image: PlatformImage, request: ImageRequest, source: Source, urlResponse: URLResponse? = nil,
                isPreview: Bool = false, timings: ImageTimings = ImageTimings(), resumedFromByte: Int? = nil,
                imageSource: ImageSource? = nil, isLowData: Bool = false) {
        self.isLowData = isLowData
        self.resumedFromByte = resumedFromByte
        self.imageSource = imageSource ?? request.primarySource
        self.image = image
        self.request = request
        self.source = source
        self.urlResponse = urlResponse
        self.isPreview = isPreview
        self.timings = timings
    }
}

// Asserted only where `PlatformImage` is not `Sendable` on every supported system (see `PlatformImage`).
#if canImport(UIKit) || canImport(AppKit) || SHASHIN_APPLE_SHAPE
extension ImageResponse: @unchecked Sendable {} // immutable; images are never mutated after decoding
#else
extension ImageResponse: Sendable {}
#endif
