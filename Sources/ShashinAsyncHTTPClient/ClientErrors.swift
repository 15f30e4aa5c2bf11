import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOHTTP1
import NIOPosix
import ShashinCore

/// How the client's errors become `ImagePipelineError`s, with a sentence saying what happened.
enum ClientErrors {
    /// Whether `error`, arriving while a body is read, means the body broke off (the server
    /// closed or reset the connection), rather than a timeout or a cancellation.
    static func isBrokenBody(_ error: any Error) -> Bool {
        if let error = error as? HTTPClientError {
            return ![HTTPClientError.readTimeout, .deadlineExceeded, .cancelled, .connectTimeout].contains(error)
        }
        return !(error is CancellationError)
    }

    /// The `ImagePipelineError` for an error of the client (`inBody`: while the body was read,
    /// after the response's head); the code is the `URLError` code the
    /// same failure has under `URLSessionDataLoader`.
    static func pipelineError(from error: any Error, inBody: Bool, idleTimeout: TimeAmount?, totalTimeout: TimeAmount) -> any Error {
        if error is ImagePipelineError { return error }
        func failure(_ code: URLError.Code, _ message: String) -> ImagePipelineError {
            .networkFailure(code: code.rawValue, message: message)
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded:
                return ImagePipelineError.timedOut(seconds: Double(totalTimeout.nanoseconds) / 1e9, idle: false)
            case .readTimeout:
                guard let idleTimeout else { return failure(.timedOut, "No data from the server within the client's read timeout") }
                return ImagePipelineError.timedOut(seconds: Double(idleTimeout.nanoseconds) / 1e9, idle: true)
            case .connectTimeout, .tlsHandshakeTimeout:
                return failure(.timedOut, "Could not connect in time (\(error))")
            case .remoteConnectionClosed:
                return failure(.networkConnectionLost, "The server closed the connection before the response was complete")
            case .invalidURL, .emptyHost, .emptyScheme:
                return ImagePipelineError.invalidURL(String(describing: error))
            case .alreadyShutdown:
                return failure(.cancelled, "The loader's HTTP client has been shut down")
            default:
                return failure(.badServerResponse, "HTTP client error: \(error)")
            }
        }
        if let error = error as? HTTPParserError {
            if error == .unexpectedContentLength {
                return ImagePipelineError.invalidResponse(
                    reason: "the response has more than one Content-Length value, or one on a body that cannot have it")
            }
            switch error {
            case .headerOverflow:
                return ImagePipelineError.invalidResponse(
                    reason: "the response's header section is larger than the HTTP parser accepts (80 KB)")
            case .invalidConstant, .invalidVersion, .invalidStatus, .unknown:
                return ImagePipelineError.invalidResponse(
                    reason: "the server's reply has no valid HTTP/1.x status line (\(error))")
            default:
                return ImagePipelineError.invalidResponse(reason: "the server's reply is not valid HTTP (\(error))")
            }
        }
        if inBody, isBrokenBody(error) {
            return failure(.networkConnectionLost, "The connection broke while the body was read: \(error)")
        }
        if error is NIOConnectionError || error is ChannelError || error is IOError {
            return failure(.cannotConnectToHost, "Could not connect to the server: \(error)")
        }
        return failure(.unknown, "\(type(of: error)): \(error)")
    }
}
