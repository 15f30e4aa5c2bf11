import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The state of one download: the bytes so far, the limit, and the one continuation to resume.
final class DataTransfer: @unchecked Sendable { // `state` behind its lock; `maxBytes` and `progress` immutable
    private struct State {
        var continuation: CheckedContinuation<(Data, URLResponse), any Error>?
        var outcome: Result<(Data, URLResponse), any Error>?
        var response: URLResponse?
        var data = Data()
        var expected: Int64 = -1
        var redirects = 0
    }

    private let maxBytes: Int
    private let acceptsAnyStatus: Bool
    private let isHead: Bool
    private let maxRedirects: Int
    private let progress: @Sendable (Int64, Int64) -> Void
    private let state = Locked(State())

    /// - Parameter acceptsAnyStatus: deliver responses outside 200–299 with their body instead of
    ///   failing with `httpStatus`.
    /// - Parameter isHead: the request is a HEAD, whose response has no body.
    init(maxBytes: Int, acceptsAnyStatus: Bool = false, isHead: Bool = false, maxRedirects: Int = 5,
         progress: @escaping @Sendable (Int64, Int64) -> Void) {
        self.maxRedirects = maxRedirects
        self.maxBytes = maxBytes
        self.acceptsAnyStatus = acceptsAnyStatus
        self.isHead = isHead
        self.progress = progress
    }

    func begin(_ continuation: CheckedContinuation<(Data, URLResponse), any Error>) {
        let outcome = state.withLock { state -> Result<(Data, URLResponse), any Error>? in
            if state.outcome == nil { state.continuation = continuation }
            return state.outcome
        }
        if let outcome { continuation.resume(with: outcome) }
    }

    /// Checks the status and announced length; `false` ends the transfer.
    func accept(_ response: URLResponse) -> Bool {
        let status = (response as? HTTPURLResponse)?.statusCode
        if let status, !acceptsAnyStatus, !(200..<300).contains(status) {
            fail(ImagePipelineError.httpStatus(status))
            return false
        }
        // HEAD, 1xx, 204 and 304 have no body, whatever their Content-Length says (RFC 9110 §6.4.1).
        let hasNoBody = isHead || (status.map { (100..<200).contains($0) || $0 == 204 || $0 == 304 } ?? false)
        let expected = hasNoBody ? 0 : response.expectedContentLength
        if expected > maxBytes {
            fail(ImagePipelineError.dataTooLarge(limit: maxBytes))
            return false
        }
        state.withLock { state in
            state.response = response
            state.expected = expected
            if expected > 0 { state.data.reserveCapacity(Int(expected)) }
        }
        return true
    }

    /// Whether to follow a redirect to `request`: only to `http` or `https`, and at most
    /// `maxRedirects` times; otherwise the transfer fails.
    func mayRedirect(to request: URLRequest) -> Bool {
        let scheme = request.url?.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" else {
            fail(ImagePipelineError.unsupportedScheme(scheme))
            return false
        }
        let count = state.withLock { state -> Int in state.redirects += 1; return state.redirects }
        guard count <= maxRedirects else {
            fail(ImagePipelineError.tooManyRedirects(limit: maxRedirects))
            return false
        }
        return true
    }

    /// Adds a chunk; `false` when the body passed the limit (the transfer has failed).
    func append(_ chunk: Data) -> Bool {
        let counts = state.withLock { state -> (Int64, Int64)? in
            guard state.outcome == nil else { return nil }
            guard state.data.count + chunk.count <= maxBytes else { return (-1, -1) }
            state.data.append(chunk)
            return (Int64(state.data.count), max(0, state.expected))
        }
        guard let (received, expected) = counts else { return false }
        guard received >= 0 else {
            fail(ImagePipelineError.dataTooLarge(limit: maxBytes))
            return false
        }
        progress(received, expected)
        return true
    }

    func complete(response: URLResponse?, error: (any Error)?) {
        if let error {
            // A connection closed before the announced length is a truncated body, whatever
            // code the platform's HTTP stack gives it (libcurl's "partial file" on Linux).
            let (received, expected) = state.withLock { ($0.data.count, $0.expected) }
            if let urlError = error as? URLError, urlError.code != .cancelled, urlError.code != .timedOut,
               expected > 0, received < expected {
                fail(ImagePipelineError.truncatedData(expected: Int(expected), received: received))
            } else {
                fail(Self.pipelineError(from: error))
            }
            return
        }
        let (data, expected, storedResponse) = state.withLock { ($0.data, $0.expected, $0.response) }
        guard let response = storedResponse ?? response else {
            fail(ImagePipelineError.networkFailure(code: URLError.badServerResponse.rawValue, message: "No response"))
            return
        }
        // With a Content-Encoding the announced length is of the encoded body, not of `data`.
        let isEncoded = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Encoding").map { $0 != "identity" } ?? false
        if expected >= 0, !isEncoded, Int64(data.count) != expected {
            fail(ImagePipelineError.truncatedData(expected: Int(expected), received: data.count))
            return
        }
        resolve(.success((data, response)))
    }

    /// Ends the transfer with `error` unless it already ended.
    func fail(_ error: any Error) { resolve(.failure(error)) }

    private func resolve(_ outcome: Result<(Data, URLResponse), any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<(Data, URLResponse), any Error>? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            state.data = Data()
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: outcome)
    }

    /// Our own cancellations (the caller's, the size limit, a refused status) end the transfer
    /// before URLSession reports them, so a `.cancelled` arriving here was nobody's request: a
    /// failure like any other URL error.
    static func pipelineError(from error: any Error) -> any Error {
        guard let urlError = error as? URLError else { return error }
        return ImagePipelineError(urlError)
    }
}
