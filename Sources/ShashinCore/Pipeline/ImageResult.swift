import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A decoded or processed image on its way to the requests that share it.
struct ImageResult {
    let image: PlatformImage
    let urlResponse: URLResponse?
    let cacheType: ImageResponse.CacheType
    let timings: ImageTimings
    /// The format of the original bytes, when they were decoded on the way.
    var originalFormat: ImageFormat? = nil
    /// What the disk cache reported on the way.
    var storageErrors: [any Error] = []
    /// Where the download resumed, when it continued kept bytes.
    var resumedFromByte: Int? = nil
    /// Which of the request's sources the bytes came from; `nil` for its primary.
    var imageSource: ImageSource? = nil
}

// Asserted only where `PlatformImage` is not `Sendable` on every supported system (see `PlatformImage`).
#if canImport(UIKit) || canImport(AppKit) || SHASHIN_APPLE_SHAPE
extension ImageResult: @unchecked Sendable {} // immutable; images are never mutated after decoding
#else
extension ImageResult: Sendable {}
#endif
