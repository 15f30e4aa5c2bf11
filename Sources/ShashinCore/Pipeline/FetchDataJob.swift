import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The original bytes of an image and where they came from.
struct FetchedData: @unchecked Sendable { // immutable; URLResponse is never mutated after delivery
    let data: Data
    let urlResponse: URLResponse?
    let source: ImageResponse.Source
    let timings: ImageTimings
}

/// Downloads a URL once for everyone who asks, on the bounded network queue.
final class FetchDataJob: Job<FetchedData>, @unchecked Sendable { // confined to `JobGraph.queue`, like every job
    let request: ImageRequest
    private var workItem: WorkItem?

    init(graph: JobGraph, request: ImageRequest) {
        self.request = request
        super.init(graph: graph)
    }

    override func start() {
        let enqueuedAt = monotonicNow()
        workItem = graph.networkQueue.enqueue(priority: priority) { [self] item in
            let task = Task {
                let startedAt = monotonicNow()
                let result: Result<FetchedData, any Error>
                do {
                    let (data, response) = try await load()
                    var timings = ImageTimings()
                    timings.queued = startedAt - enqueuedAt
                    timings.network = monotonicNow() - startedAt
                    result = .success(FetchedData(data: data, urlResponse: response, source: .network, timings: timings))
                } catch {
                    result = .failure(Self.pipelineError(from: error))
                }
                item.finish()
                graph.queue.async { self.finish(result) }
            }
            item.onCancel { task.cancel() }
        }
    }

    override func didCancel() {
        workItem?.cancel()
        workItem = nil
    }

    override func didChangePriority(_ priority: Priority) {
        workItem?.setPriority(priority)
    }

    private func load() async throws -> (Data, URLResponse) {
        let configuration = graph.configuration
        var urlRequest = try Self.validated(request.urlRequest)
        if let modifier = configuration.requestModifier {
            urlRequest = try await modifier(urlRequest)
        }
        try Task.checkCancellation()
        let (data, response) = try await configuration.dataLoader.loadData(
            for: urlRequest, maxBytes: configuration.maxResponseBytes
        ) { [weak self] received, expected in
            guard let self else { return }
            graph.queue.async { self.send(progress: ImageTask.Progress(completed: received, total: expected)) }
        }
        try Task.checkCancellation()
        if let http = response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
            throw ImagePipelineError.httpStatus(http.statusCode) // for loaders that do not check
        }
        guard data.count <= configuration.maxResponseBytes else {
            throw ImagePipelineError.dataTooLarge(limit: configuration.maxResponseBytes)
        }
        guard !data.isEmpty else { throw ImagePipelineError.emptyData }
        return (data, response)
    }

    /// Refuses what no loader should be asked for: no URL, or a scheme that is not a resource.
    static func validated(_ request: URLRequest) throws -> URLRequest {
        guard let url = request.url, let scheme = url.scheme?.lowercased() else {
            throw ImagePipelineError.invalidURL(request.url?.absoluteString ?? "")
        }
        switch scheme {
        case "http", "https":
            guard let host = url.host, !host.isEmpty else { throw ImagePipelineError.invalidURL(url.absoluteString) }
        case "file", "data":
            break
        default:
            throw ImagePipelineError.unsupportedScheme(scheme)
        }
        return request
    }

    /// Errors a user can switch on: URL errors become `networkFailure`, the rest pass through.
    static func pipelineError(from error: any Error) -> any Error {
        switch error {
        case is ImagePipelineError, is CancellationError:
            return error
        case let error as URLError:
            if error.code == .cancelled, Task.isCancelled { return CancellationError() }
            return ImagePipelineError(error)
        default:
            let nsError = error as NSError
            return ImagePipelineError.networkFailure(code: nsError.code, message: nsError.localizedDescription)
        }
    }
}
