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
    private let idleTimeout: Double
    private let totalTimeout: Double
    private let startedAt = DispatchTime.now()
    private let progress: @Sendable (Int64, Int64) -> Void
    /// The calling task's `BodyObserver`, read when the transfer is made (the delegate's
    /// callbacks run on URLSession's threads, outside the task).
    private let bodyObserver = BodyObserver.current
    /// The schemes a redirect may lead to, read in the calling task (`RedirectSchemes`).
    private let redirectSchemes = RedirectSchemes.current
    /// Where the bytes of a body that breaks off go, when a pipeline download may resume it.
    private let interrupted: InterruptedBody?
    /// Where a response refused for its status goes, for the pipeline's `Retry-After` (`RefusedResponse`).
    private let refused = RefusedResponse.current
    private let state = Locked(State())

    /// - Parameter acceptsAnyStatus: deliver responses outside 200–299 with their body instead of
    ///   failing with `httpStatus`.
    /// - Parameter isHead: the request is a HEAD, whose response has no body.
    /// - Parameter idleTimeout, totalTimeout: the limits in force, for the words of a timeout error.
    init(maxBytes: Int, acceptsAnyStatus: Bool = false, isHead: Bool = false, maxRedirects: Int = 5,
         idleTimeout: Double = 60, totalTimeout: Double = 300,
         interrupted: InterruptedBody? = nil,
         progress: @escaping @Sendable (Int64, Int64) -> Void) {
        self.interrupted = interrupted
        self.maxRedirects = maxRedirects
        self.idleTimeout = idleTimeout
        self.totalTimeout = totalTimeout
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

    /// Checks the status and announced length; `false` ends the transfer. An interim response
    /// (1xx but 101, such as `100 Continue` or `103 Early Hints`) is passed over: the final one follows.
    func accept(_ response: URLResponse) -> Bool {
        let status = (response as? HTTPURLResponse)?.statusCode
        if let status, (100..<200).contains(status), status != 101 { return true }
        if let reason = Self.contentLengthConflict(in: response) {
            fail(ImagePipelineError.invalidResponse(reason: reason))
            return false
        }
        if let status, !acceptsAnyStatus, !(200..<300).contains(status) {
            refused?.record(response)
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

    /// Whether to follow a redirect to `request`: only to a scheme of `redirectSchemes` (`http`
    /// and `https`, or fewer), and at most `maxRedirects` times; otherwise the transfer fails.
    /// `location` is the redirect's raw `Location` field: a scheme it names is judged before
    /// anything resolves it (Foundation on Linux resolves `file:///etc/passwd` against the
    /// current origin, as if it were a path).
    func mayRedirect(to request: URLRequest, location: String? = nil) -> Bool {
        let scheme = location.flatMap(Self.scheme(of:)) ?? request.url?.scheme?.lowercased() ?? ""
        guard redirectSchemes.contains(scheme) else {
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
        let counts = state.withLock { state -> (Int64, Int64, Bool)? in
            guard state.outcome == nil else { return nil }
            guard state.data.count + chunk.count <= maxBytes else { return (-1, -1, false) }
            state.data.append(chunk)
            let status = (state.response as? HTTPURLResponse)?.statusCode ?? 0
            return (Int64(state.data.count), max(0, state.expected), (200..<300).contains(status))
        }
        guard let (received, expected, isSuccess) = counts else { return false }
        guard received >= 0 else {
            fail(ImagePipelineError.dataTooLarge(limit: maxBytes))
            return false
        }
        // Progressive previews are made from an image's body, never from an error page's.
        if isSuccess { bodyObserver?(chunk) }
        progress(received, expected)
        return true
    }

    /// Ends the transfer on an authentication challenge nobody answers: as `httpStatus` of the
    /// challenge's response, or with that response and no body when any status is accepted.
    func refuseChallenge(_ failureResponse: URLResponse?) {
        guard let http = failureResponse as? HTTPURLResponse else {
            fail(ImagePipelineError.httpStatus(401))
            return
        }
        if acceptsAnyStatus {
            resolve(.success((Data(), http)))
        } else {
            fail(ImagePipelineError.httpStatus(http.statusCode))
        }
    }

    /// Ends the transfer because it ran past the total limit.
    func expire() { fail(URLError.timedOut(seconds: totalTimeout, idle: false)) }

    func complete(response: URLResponse?, error: (any Error)?) {
        if let urlError = error as? URLError, let failure = explained(urlError) {
            fail(failure)
            return
        }
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
            fail(URLError.failure(.badServerResponse, "The server sent no response"))
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

    /// What a URL error from libcurl or Foundation means, in words a user can act on, where its
    /// own words mislead; `nil` leaves it to the general rule.
    private func explained(_ error: URLError) -> (any Error)? {
        let message = error.localizedDescription
        switch error.code {
        case .timedOut:
            // URLSession's own total limit (Apple platforms) says timed out too; tell them apart by the clock.
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - startedAt.uptimeNanoseconds) / 1e9
            return elapsed >= totalTimeout ? URLError.timedOut(seconds: totalTimeout, idle: false, url: error.failingURL, underlying: error)
                : URLError.timedOut(seconds: idleTimeout, idle: true, url: error.failingURL, underlying: error)
        case .unsupportedURL:
            // The request was http or https (others never reach a session), so this is libcurl's
            // "unsupported protocol" for a reply that is not HTTP/1.x.
            return ImagePipelineError.invalidResponse(reason: "the reply does not begin with an HTTP/1.x status line (garbage, or an HTTP/0.9 reply)")
        default:
            break
        }
        if message.localizedCaseInsensitiveContains("Failed writing header") {
            return ImagePipelineError.invalidResponse(reason: "a header line Foundation on Linux cannot parse, such as 'Name:value' with no space after the colon")
        }
        if message.localizedCaseInsensitiveContains("Out of memory"), state.withLock({ $0.response == nil }) {
            return ImagePipelineError.invalidResponse(reason: "the header is larger than libcurl accepts (a field line over 100 KB), or memory ran out")
        }
        if message.localizedCaseInsensitiveContains("Too large response headers") {
            return ImagePipelineError.invalidResponse(reason: "the header section is larger than libcurl accepts (300 KB in all): \(message)")
        }
        if message.localizedCaseInsensitiveContains("Empty reply from server") {
            // libcurl's "got nothing": the connection closed before a byte of the response. Foundation
            // on Linux calls it a bad server response; Apple's URLSession and the AsyncHTTPClient
            // loader call it a lost connection, which a `RetryPolicy` retries, and so it is here.
            return URLError.failure(.networkConnectionLost, "The server closed the connection before sending a response",
                                    url: error.failingURL, underlying: error)
        }
        if message.localizedCaseInsensitiveContains("unencoding") || message.localizedCaseInsensitiveContains("content encoding") {
            return ImagePipelineError.invalidResponse(reason: "the compressed body (Content-Encoding) is damaged or in an unknown encoding: \(message)")
        }
        return nil
    }

    /// Why the response's `Content-Length` cannot be trusted: several different values (RFC 9112
    /// §6.3 makes that an unrecoverable error; Foundation joins repeated fields with commas).
    static func contentLengthConflict(in response: URLResponse) -> String? {
        guard let field = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Length") else { return nil }
        let values = Set(field.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        guard values.count > 1 else { return nil }
        return "different Content-Length values (\(field)), so the body's end is unknown"
    }

    /// The scheme a URL reference names (RFC 3986 §3.1), lowercased; `nil` for a relative reference.
    static func scheme(of reference: String) -> String? {
        let trimmed = reference.trimmingCharacters(in: .whitespaces)
        guard let colon = trimmed.firstIndex(of: ":") else { return nil }
        let candidate = trimmed[..<colon]
        guard let first = candidate.first, first.isASCII, first.isLetter,
              candidate.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return candidate.lowercased()
    }

    /// Ends the transfer with `error` unless it already ended.
    func fail(_ error: any Error) { resolve(.failure(error)) }

    private func resolve(_ outcome: Result<(Data, URLResponse), any Error>) {
        let (continuation, partial) = state.withLock { state -> (CheckedContinuation<(Data, URLResponse), any Error>?, (Data, URLResponse)?) in
            guard state.outcome == nil else { return (nil, nil) }
            state.outcome = outcome
            let partial = state.response.map { (state.data, $0) }
            state.data = Data()
            defer { state.continuation = nil }
            return (state.continuation, partial)
        }
        // Before the caller resumes: it reads what was kept as soon as the error reaches it.
        if case .failure(let error) = outcome, let interrupted, let (data, response) = partial,
           InterruptedBody.isResumable(after: error) {
            interrupted.record(data, response: response)
        }
        continuation?.resume(with: outcome)
    }

    /// Our own cancellations (the caller's, the size limit, a refused status) end the transfer
    /// before URLSession reports them, so a `.cancelled` arriving here was nobody's request: a
    /// failure like any other URL error, which passes through as the platform gave it (a refusal
    /// for Low Data Mode becomes `networkConstrained`).
    static func pipelineError(from error: any Error) -> any Error {
        if let urlError = error as? URLError, urlError.isConstrainedNetworkRefusal { return ImagePipelineError.networkConstrained }
        return error
    }
}
