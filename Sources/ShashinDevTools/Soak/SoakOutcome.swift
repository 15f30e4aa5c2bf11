import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Shashin

/// How one soak request ended: with an image (and where it came from), an error (named by
/// kind), or cancellation.
enum SoakOutcome: Sendable, Equatable {
    /// Where it came from: `ImageResponse.loadedFrom`.
    case image(String)
    case error(String)
    case cancelled

    init(_ result: Result<ImageResponse, any Error>) {
        switch result {
        case .success(let response): self = .image(response.loadedFrom)
        case .failure(let error): self = Self.classify(error)
        }
    }

    /// `image`, `error` or `cancelled`.
    var category: String {
        switch self {
        case .image: "image"
        case .error: "error"
        case .cancelled: "cancelled"
        }
    }

    /// A short name for the report: `image/network`, `error/http 500`, `cancelled`.
    var label: String {
        switch self {
        case .image(let source): "image/\(source)"
        case .error(let name): "error/\(name)"
        case .cancelled: "cancelled"
        }
    }

    private static func classify(_ error: any Error) -> SoakOutcome {
        if error is CancellationError { return .cancelled }
        if let error = error as? URLError {
            switch error.code {
            case .timedOut: return .error("timed out")
            case .networkConnectionLost: return .error("connection lost")
            default: return .error("network \(error.code.rawValue)")
            }
        }
        guard let error = error as? ImagePipelineError else { return .error("other: \(type(of: error))") }
        switch error {
        case .httpStatus(let status): return .error("http \(status)")
        case .truncatedData: return .error("truncated body")
        case .decodingFailed: return .error("decoding failed")
        case .cacheMiss: return .error("cache miss")
        case .emptyData: return .error("empty data")
        case .processingFailed: return .error("processing failed")
        case .dataTooLarge: return .error("too large")
        case .imageTooLarge: return .error("too many pixels")
        default: return .error("\(error)")
        }
    }
}
