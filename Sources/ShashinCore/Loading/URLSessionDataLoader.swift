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

    /// Creates a loader with its own session made from `configuration`.
    /// - Parameter maxRedirects: the most redirects followed for one request (default 5); a
    ///   redirect to anything but `http` or `https` is always refused.
    public init(configuration: URLSessionConfiguration = URLSessionDataLoader.defaultConfiguration, maxRedirects: Int = 5) {
        self.maxRedirects = maxRedirects
        delegate = URLSessionDataLoaderDelegate()
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
        let transfer = DataTransfer(maxBytes: maxBytes, acceptsAnyStatus: acceptsAnyStatus,
                                    isHead: request.httpMethod?.uppercased() == "HEAD", maxRedirects: maxRedirects,
                                    progress: progress)
        let task = session.dataTask(with: request)
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
final class URLSessionDataLoaderDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable { // `transfers` behind `transfers`' lock
    private let transfers = Locked<[Int: DataTransfer]>([:])

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
        guard let transfer = transfer(for: task), transfer.mayRedirect(to: request) else {
            completionHandler(nil)
            task.cancel()
            return
        }
        completionHandler(request)
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
