import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A decoded or processed image on its way to the requests that share it.
struct ImageResult: @unchecked Sendable { // immutable; images are never mutated after decoding
    let image: PlatformImage
    let urlResponse: URLResponse?
    let source: ImageResponse.Source
    let timings: ImageTimings
    /// The format of the original bytes, when they were decoded on the way.
    var originalFormat: ImageFormat? = nil
    /// What the disk cache reported on the way.
    var storageErrors: [any Error] = []
    /// Where the download resumed, when it continued kept bytes.
    var resumedFromByte: Int? = nil
}
