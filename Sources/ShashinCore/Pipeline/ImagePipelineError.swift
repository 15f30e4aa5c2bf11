import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every way a request can fail that is the pipeline's to name, as one enum a caller can switch
/// on. Two kinds of failure are not here: a failure of the transport is the platform's
/// `URLError` as the loader reported it (no connection, a lost connection, a timeout, a host that
/// does not resolve; on Linux the AsyncHTTPClient error is its `underlyingError`), and a
/// cancelled task always ends with Swift's `CancellationError`.
///
/// ```swift
/// do {
///     let image = try await pipeline.image(for: url)
/// } catch let error as URLError where error.code == .notConnectedToInternet {
///     showOfflineBanner()
/// } catch ImagePipelineError.httpStatus(404) {
///     showMissing()
/// }
/// ```
public enum ImagePipelineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The request has no URL, or one that cannot be loaded.
    case invalidURL(String)
    /// The URL's scheme is not allowed (`ImagePipeline.Configuration.allowedSchemes`: `http` and
    /// `https` by default) or not one the loader handles (such as `ftp`); also a redirect to one.
    case unsupportedScheme(String)
    /// The server redirected more times than the loader allows.
    case tooManyRedirects(limit: Int)
    /// The server answered with a status outside 200–299.
    case httpStatus(Int)
    /// The response body passed `limit` bytes (announced by `Content-Length` or counted).
    case dataTooLarge(limit: Int)
    /// The response body was shorter than its `Content-Length` said.
    case truncatedData(expected: Int, received: Int)
    /// The response had no body.
    case emptyData
    /// The server's reply breaks HTTP's rules (no status line, conflicting `Content-Length`
    /// values, a damaged compressed body, an oversized header); `reason` says which, in words.
    case invalidResponse(reason: String)
    /// The loader's `DestinationPolicy` refused to connect: `host` resolved to `address`, a
    /// loopback, private, link-local or otherwise internal address.
    case destinationRefused(host: String, address: String)
    /// The bytes are not an image the decoder can read; `format` is what was sniffed, if anything.
    case decodingFailed(format: ImageFormat?, reason: String)
    /// The data is a video (`format`, sniffed from its first bytes) and this platform has no
    /// video decoder: `ImageDecoderRegistry.videoDecoder` is `nil`, as it is on Linux (on Apple
    /// platforms `import Shashin` decodes a video's frame through AVFoundation).
    case videoNotSupported(VideoFormat)
    /// The video decoder could not make a frame of the `format` video; `reason` says why.
    case videoDecodingFailed(format: VideoFormat, reason: String)
    /// The image declares more pixels than the configured limit (a decompression bomb guard).
    case imageTooLarge(width: Int, height: Int, limit: Int)
    /// Decoding the image would take about `estimate` bytes at its peak (from its header: size,
    /// bit depth, channels, interlacing or progressive coding), more than the decode memory
    /// budget of `budget` bytes (`ImageDecodingContext.memoryBudget`).
    case decodeMemoryExceeded(estimate: Int, budget: Int)
    /// A processor threw.
    case processingFailed(identifier: String, reason: String)
    /// The request allowed only cached data and there was none.
    case cacheMiss
    /// The system refused the download because the network is constrained (Low Data Mode on
    /// Apple platforms) and the request was sent with `allowsConstrainedNetworkAccess` off: a
    /// request with a `lowDataImage` loads that instead; one without ends with this.
    case networkConstrained

    /// A sentence saying what went wrong.
    public var description: String {
        switch self {
        case .invalidURL(let url): "Invalid URL: '\(url)'"
        case .unsupportedScheme(let scheme):
            "Refused URL scheme '\(scheme)': a request may use the configuration's allowedSchemes (http and https by default), a redirect only those of http and https among them"
        case .tooManyRedirects(let limit): "More than \(limit) redirects"
        case .httpStatus(let code): "HTTP status \(code) (\(HTTPURLResponse.localizedString(forStatusCode: code)))"
        case .dataTooLarge(let limit): "Response is larger than the limit of \(limit) bytes"
        case .truncatedData(let expected, let received): "Response body ended after \(received) of \(expected) bytes"
        case .emptyData: "Response has no data"
        case .invalidResponse(let reason): "Invalid HTTP response from the server: \(reason)"
        case .destinationRefused(let host, let address):
            "Refused to connect to \(host) (\(address)): the destination policy forbids loopback, private, link-local and metadata addresses"
        case .decodingFailed(let format, let reason): "Failed to decode \(format.map { "\($0) " } ?? "unrecognised ")data: \(reason)"
        case .videoNotSupported(let format):
            #if os(Linux)
            "The data is a \(format) video, and video is not supported on Linux: Shashin decodes a video's frame only on Apple platforms (AVFoundation)"
            #else
            "The data is a \(format) video, and no video decoder is configured (ImageDecoderRegistry.videoDecoder)"
            #endif
        case .videoDecodingFailed(let format, let reason): "Failed to take a frame of the \(format) video: \(reason)"
        case .imageTooLarge(let width, let height, let limit): "Image of \(width)×\(height) pixels exceeds the limit of \(limit) pixels"
        case .decodeMemoryExceeded(let estimate, let budget):
            "Decoding would need about \(Self.megabytes(estimate)) at its peak, over the decode memory budget of \(Self.megabytes(budget))"
        case .processingFailed(let identifier, let reason): "Processor '\(identifier)' failed: \(reason)"
        case .cacheMiss: "No cached data and the cache policy forbids loading"
        case .networkConstrained:
            "The system refused the download because the network is constrained (Low Data Mode) and the request does not allow constrained network access"
        }
    }
}

extension ImagePipelineError {
    /// Megabytes of 2^20 bytes, as `DecodeMemoryBudget` counts them.
    static func megabytes(_ bytes: Int) -> String {
        String(format: "%.0f MB", Double(bytes) / 1_048_576)
    }
}

extension ImagePipelineError: LocalizedError {
    /// The same sentence as `description`, for UI that shows `localizedDescription`.
    public var errorDescription: String? { description }
}

extension ImagePipelineError {
    /// What a failure from a loader becomes for the caller: cancellation is `CancellationError`
    /// when someone asked for it, a refusal for Low Data Mode is `networkConstrained`, and
    /// everything else (a `URLError`, the pipeline's own errors, an app loader's) passes through.
    static func fromLoader(_ error: any Error) -> any Error {
        switch error {
        case let error as URLError:
            if error.code == .cancelled, Task.isCancelled { return CancellationError() }
            if error.isConstrainedNetworkRefusal { return ImagePipelineError.networkConstrained }
            return error
        default:
            return error
        }
    }
}
