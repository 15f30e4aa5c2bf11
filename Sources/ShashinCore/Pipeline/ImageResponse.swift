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
    /// Which cache answered, if any: `.memory`, `.disk`, `.revalidated` (the disk's copy, after
    /// the server confirmed it with 304 Not Modified), or `.none` when the image was loaded
    /// (downloaded, or returned by a data source's closure). Where the bytes came from is
    /// ``source``.
    public let cacheType: CacheType
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
    /// Which source made the image: the request's own (`ImageRequest.source`), or the one of its
    /// `alternativeSources` that loaded when those before it failed, or its low-data image's
    /// (`isLowData`). A memory-cache or disk hit is always the request's own image: an
    /// alternative's is never kept under the request's key. Which cache answered is ``cacheType``.
    public let source: ImageSource
    /// Whether the image is the request's low-data one (`ImageRequest.lowDataImage`), loaded
    /// because the network was constrained; `source` is then the low-data image's.
    public let isLowData: Bool
    /// For an animated GIF or WebP (whose first frame is `image`): the original data and frame
    /// count; `nil` for still images.
    public var animation: ImageAnimation? { image.animation }

    /// Which cache answered a load, as Nuke and Kingfisher call it.
    public enum CacheType: String, Sendable, Hashable, CaseIterable {
        /// None: the image was loaded, downloaded or returned by a data source's closure.
        case none
        /// The memory cache: no work was done.
        case memory
        /// The disk cache: decoded from stored bytes, no network.
        case disk
        /// The disk cache's copy, after the server confirmed it with 304 Not Modified.
        case revalidated
    }

    /// Creates a response; `source` defaults to the request's own.
    public init(image: PlatformImage, request: ImageRequest, cacheType: CacheType, urlResponse: URLResponse? = nil,
                isPreview: Bool = false, timings: ImageTimings = ImageTimings(), resumedFromByte: Int? = nil,
                source: ImageSource? = nil, isLowData: Bool = false) {
        self.isLowData = isLowData
        self.resumedFromByte = resumedFromByte
        self.source = source ?? request.source
        self.image = image
        self.request = request
        self.cacheType = cacheType
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
