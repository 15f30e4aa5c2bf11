import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOHTTP1
import NIOPosix
import ShashinCore

/// How the client's errors become the pipeline's: `URLError`s for the transport, with a sentence
/// saying what happened and the client's error underneath; `ImagePipelineError`s for bad replies.
enum ClientErrors {
    /// Whether `error`, arriving while a body is read, means the body broke off (the server
    /// closed or reset the connection), rather than a timeout or a cancellation.
    static func isBrokenBody(_ error: any Error) -> Bool {
        if let error = error as? HTTPClientError {
            return ![HTTPClientError.readTimeout, .deadlineExceeded, .cancelled, .connectTimeout].contains(error)
        }
        return !(error is CancellationError)
    }

    /// The error the pipeline reports for an error of the client (`inBody`: while the body was
    /// read, after the response's head). A transport failure is the `URLError` the same failure
    /// has under `URLSessionDataLoader`, with a sentence and the client's error as its
    /// `underlyingError`; a reply that breaks HTTP's rules is `ImagePipelineError.invalidResponse`.
    static func pipelineError(from error: any Error, inBody: Bool, idleTimeout: TimeAmount?, totalTimeout: TimeAmount,
                              url: URL? = nil) -> any Error {
        if error is ImagePipelineError || error is URLError || error is CancellationError { return error }
        func failure(_ code: URLError.Code, _ message: String) -> URLError {
            .failure(code, message, url: url, underlying: error)
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded:
                return URLError.timedOut(seconds: Double(totalTimeout.nanoseconds) / 1e9, idle: false, url: url, underlying: error)
            case .readTimeout:
                guard let idleTimeout else { return failure(.timedOut, "No data from the server within the client's read timeout") }
                return URLError.timedOut(seconds: Double(idleTimeout.nanoseconds) / 1e9, idle: true, url: url, underlying: error)
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
        if let code = connectionCode(of: error) {
            return failure(code, "Could not connect to the server: \(error)")
        }
        if error is ChannelError || error is IOError {
            return failure(.cannotConnectToHost, "Could not connect to the server: \(error)")
        }
        return failure(.unknown, "\(type(of: error)): \(error)")
    }

    /// The `URLError` code Apple's URLSession gives a connection that failed as `error` did: no
    /// network (`ENETUNREACH`, `EHOSTUNREACH`, `ENETDOWN`) is `notConnectedToInternet`, a refusal
    /// `cannotConnectToHost`, a reset `networkConnectionLost`, a name that did not resolve
    /// `cannotFindHost`; `nil` for an error that is not about connecting.
    static func connectionCode(of error: any Error) -> URLError.Code? {
        if let error = error as? IOError {
            switch error.errnoCode {
            case ENETUNREACH, EHOSTUNREACH, ENETDOWN: return .notConnectedToInternet
            case ECONNREFUSED: return .cannotConnectToHost
            case ECONNRESET, EPIPE: return .networkConnectionLost
            case ETIMEDOUT: return .timedOut
            default: return nil
            }
        }
        if let error = error as? NIOConnectionError {
            // Every address tried: the first failure's kind names them all (a machine without a
            // network fails each the same way). No address at all: the name did not resolve.
            if let first = error.connectionErrors.first { return connectionCode(of: first.error) ?? .cannotConnectToHost }
            return .cannotFindHost
        }
        if case .connectTimeout = error as? ChannelError { return .timedOut }
        return nil
    }
}
