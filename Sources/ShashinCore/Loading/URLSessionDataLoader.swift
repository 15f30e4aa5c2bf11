import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default `DataLoading`, on `URLSession`, on every platform.
///
/// It streams the body through a delegate so it can report progress and stop as soon as a body
/// passes the size limit (also when `Content-Length` is missing or lies), refuses statuses
/// outside 200–299 without reading their body, and notices a body cut short of its
/// `Content-Length`. It gives the session no `URLCache`: HTTP caching is the disk cache's job
/// (URLSession on Linux never stores responses anyway).
///
/// Hostile servers: it answers every authentication challenge (a server-trust one by the
/// system's rules, any other by refusing it, which ends the request with the challenge's
/// `httpStatus`, such as 401, or that response with no body from `loadResponse`), skips interim
/// 1xx responses, refuses a redirect whose `Location` names a scheme other than `http` or
/// `https` (or one the pipeline's `allowedSchemes` leaves out: `RedirectSchemes`) before anything
/// resolves it, refuses different `Content-Length` values, and ends any
/// request at `timeoutIntervalForResource` whatever it is waiting for. `destinationPolicy`
/// guards a server that loads URLs its users supply.
///
/// What libcurl (behind URLSession on Linux) does that this loader cannot change from outside:
/// - A header field written `Name:value`, with no space after the colon, fails the whole
///   response on Linux (HTTP allows it); the error says so (`invalidResponse`).
/// - Header parsing costs time in the square of the number of header lines (51,000 small lines:
///   about 30 s of CPU, ending in libcurl's own refusal of a header section over 300 KB). The
///   total limit bounds how long a caller waits; meanwhile libcurl's thread, which every
///   URLSession of the process shares, serves no other request.
/// - A header field line over 100 KB is refused by libcurl as "Out of memory"; the error says
///   the header was too large.
/// - A body longer than its `Content-Length` is cut at the announced length without an error:
///   the bytes are a truncated image, which the decoder then refuses.
///
/// ```swift
/// let loader = URLSessionDataLoader()
/// let (data, response) = try await loader.loadData(for: URLRequest(url: url), maxBytes: 10 << 20) { _, _ in }
/// ```
public final class URLSessionDataLoader: DataLoading, Sendable {
    /// One loader for every pipeline that does not configure its own.
    public static let shared = URLSessionDataLoader()

    /// The session requests go through.
    public let session: URLSession
    private let delegate: URLSessionDataLoaderDelegate

    /// The most redirects followed for one request; more fail with `tooManyRedirects`.
    public let maxRedirects: Int
    /// Where requests and redirects may go; default `.unrestricted`.
    public let destinationPolicy: DestinationPolicy
    /// Seconds without a byte before a request fails (the configuration's `timeoutIntervalForRequest`).
    let idleTimeout: Double
    /// Seconds before any request fails, whatever it waits for (`timeoutIntervalForResource`).
    let totalTimeout: Double

    /// Creates a loader with its own session made from `configuration`.
    /// - Parameters:
    ///   - maxRedirects: the most redirects followed for one request (default 5); a redirect to
    ///     anything but `http` or `https` is always refused.
    ///   - destinationPolicy: where requests and redirects may connect; `.publicAddressesOnly`
    ///     for a server loading user-supplied URLs.
    public init(configuration: URLSessionConfiguration = URLSessionDataLoader.defaultConfiguration, maxRedirects: Int = 5,
                destinationPolicy: DestinationPolicy = .unrestricted) {
        self.maxRedirects = maxRedirects
        self.destinationPolicy = destinationPolicy
        idleTimeout = configuration.timeoutIntervalForRequest
        totalTimeout = configuration.timeoutIntervalForResource
        delegate = URLSessionDataLoaderDelegate(destinationPolicy: destinationPolicy)
        let delegateQueue = OperationQueue()
        delegateQueue.maxConcurrentOperationCount = 1
        delegateQueue.name = "shashin.urlsession.delegate"
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue)
    }

    // A session holds its delegate until invalidated: without this a dropped loader would leak
    // its session (on Apple platforms). Downloads in flight still finish.
    deinit { session.finishTasksAndInvalidate() }

    /// `.default` with no `URLCache`, 60 s without a byte before a request fails, and 300 s for a
    /// whole download (a server trickling a byte a minute would otherwise hold a download slot
    /// for the session default of seven days).
    public static var defaultConfiguration: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = 60
        configuration.timeoutIntervalForResource = 300
        configuration.httpMaximumConnectionsPerHost = 16
        return configuration
    }

    public func loadData(for request: URLRequest, maxBytes: Int,
                         progress: @escaping @Sendable (Int64, Int64) -> Void) async throws -> (Data, URLResponse) {
        try await load(request, maxBytes: maxBytes, acceptsAnyStatus: false, progress: progress)
    }

    /// Like `loadData`, but any status comes back with its body (a 304 with none).
    public func loadResponse(for request: URLRequest, maxBytes: Int,
                             progress: @escaping @Sendable (Int64, Int64) -> Void) async throws -> (Data, URLResponse) {
        try await load(request, maxBytes: maxBytes, acceptsAnyStatus: true, progress: progress)
    }

    private func load(_ request: URLRequest, maxBytes: Int, acceptsAnyStatus: Bool,
                      progress: @escaping @Sendable (Int64, Int64) -> Void) async throws -> (Data, URLResponse) {
        guard let url = request.url else { throw ImagePipelineError.invalidURL("") }
        switch url.scheme?.lowercased() {
        case "http", "https": break
        case "file", "data": return try await LocalResourceLoader().loadData(for: request, maxBytes: maxBytes, progress: progress)
        case let scheme: throw ImagePipelineError.unsupportedScheme(scheme ?? "")
        }
        if destinationPolicy.refusesInternalAddresses {
            // getaddrinfo blocks: off the Swift pool.
            let policy = destinationPolicy
            try await offThePool { () throws -> Void in try policy.check(url) }
        }
        let transfer = DataTransfer(maxBytes: maxBytes, acceptsAnyStatus: acceptsAnyStatus,
                                    isHead: request.httpMethod?.uppercased() == "HEAD", maxRedirects: maxRedirects,
                                    idleTimeout: idleTimeout, totalTimeout: totalTimeout,
                                    interrupted: InterruptedBody.current, progress: progress)
        let task = session.dataTask(with: request)
        // The total limit, enforced here: URLSession's own does not end a task stuck where
        // libcurl is not waiting for bytes (an unanswered challenge on Linux never completes).
        let deadline = totalTimeout.isFinite && totalTimeout > 0
            ? TransferDeadline(seconds: totalTimeout) {
                transfer.expire()
                task.cancel()
            }
            : nil
        defer { deadline?.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfer.begin(continuation)
                delegate.register(transfer, for: task)
                task.resume()
            }
        } onCancel: {
            transfer.fail(CancellationError())
            task.cancel()
        }
    }
}

/// Routes the session's delegate calls to the transfer of each task.
final class URLSessionDataLoaderDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable { // `transfers` behind `transfers`' lock; the rest immutable
    private let transfers = Locked<[Int: DataTransfer]>([:])
    private let destinationPolicy: DestinationPolicy
    /// Gives the credential for a challenge, or `nil` to refuse it: the seam for configured
    /// credentials. Until they exist, every challenge but server trust is refused.
    private let credential: @Sendable (URLAuthenticationChallenge) -> URLCredential?

    init(destinationPolicy: DestinationPolicy,
         credential: @escaping @Sendable (URLAuthenticationChallenge) -> URLCredential? = { _ in nil }) {
        self.destinationPolicy = destinationPolicy
        self.credential = credential
    }

    func register(_ transfer: DataTransfer, for task: URLSessionTask) {
        transfers.withLock { $0[task.taskIdentifier] = transfer }
    }

    private func transfer(for task: URLSessionTask) -> DataTransfer? {
        transfers.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        guard let transfer = transfer(for: dataTask), transfer.accept(response) else {
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        let location = response.value(forHTTPHeaderField: "Location")
        guard let transfer = transfer(for: task), transfer.mayRedirect(to: request, location: location) else {
            completionHandler(nil)
            task.cancel()
            return
        }
        let request = Self.withoutCredentials(request, unlessSameOriginAs: response.url)
        guard destinationPolicy.refusesInternalAddresses, let url = request.url else {
            completionHandler(request)
            return
        }
        // Resolving blocks: not on the delegate queue, which every transfer shares.
        let policy = destinationPolicy
        DispatchQueue.global(qos: .userInitiated).async {
            do {
                try policy.check(url)
                completionHandler(request)
            } catch {
                transfer.fail(error)
                completionHandler(nil)
                task.cancel()
            }
        }
    }

    /// Credentials meant for one origin do not follow a redirect to another: `request` without
    /// `Authorization`, `Cookie` and `Proxy-Authorization` when its origin is not `previous`'s.
    static func withoutCredentials(_ request: URLRequest, unlessSameOriginAs previous: URL?) -> URLRequest {
        guard let target = request.url, Origin(target) != previous.flatMap(Origin.init) else { return request }
        var stripped = request
        for name in ["Authorization", "Cookie", "Proxy-Authorization"] { stripped.setValue(nil, forHTTPHeaderField: name) }
        return stripped
    }

    /// Every challenge gets an answer (on Linux one left unanswered stalls the task for good):
    /// TLS ones (server trust, client certificate) by the system's rules; any other with a credential when one is given,
    /// otherwise refused, which ends the transfer with the challenge's response.
    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        // TLS-level challenges (Apple platforms only) keep the system's handling.
        let method = challenge.protectionSpace.authenticationMethod
        if method == "NSURLAuthenticationMethodServerTrust" || method == "NSURLAuthenticationMethodClientCertificate" {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        if challenge.previousFailureCount == 0, let credential = credential(challenge) {
            completionHandler(.useCredential, credential)
            return
        }
        transfer(for: task)?.refuseChallenge(challenge.failureResponse)
        completionHandler(.cancelAuthenticationChallenge, nil)
        task.cancel()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let transfer = transfer(for: dataTask) else { return }
        if !transfer.append(data) { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let transfer = transfers.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        transfer?.complete(response: task.response, error: error)
    }
}
