import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request's sources (`ImageRequest.source`, then `alternativeSources`): the job loads
/// one at a time, and when one fails with anything but cancellation, it starts the next, with a
/// retry budget of its own. The bytes of a data source come from its closure, or from the disk
/// cache under its identifier, on the network queue (which orders them by priority).
extension FetchDataJob {
    /// Starts loading the source at `index` of the request's sources.
    func startSource(at index: Int) {
        sourceIndex = index
        retry = DownloadRetry()
        switch request.sources[index].kind {
        case .url(let urlRequest): start(urlRequest)
        case .data(let source): load(source)
        }
    }

    /// The image identifier the source now loading is stored under: the request's for its primary
    /// (`CacheKeys.originalKey`); none for an alternative, a resource of its own kept under its
    /// URL (under the identifier it would answer the next load of the request's own source).
    nonisolated var sourceImageKey: String? {
        sourceIndex == 0 ? graph.keys.originalKey(for: request) : nil
    }

    /// What the HTTP cache may do with the source now loading: the request's switches and
    /// options, stored under `sourceImageKey` when there is one, else under the URL.
    nonisolated var sourceControl: HTTPCache.RequestControl {
        var control = graph.httpControl(for: request)
        control.key = sourceImageKey
        return control
    }

    /// The key of the kept partial body a download of the source now loading, sent as `sent`,
    /// continues: `sourceImageKey`, else the sent URL's.
    nonisolated func resumeKey(sent: URLRequest) -> String? {
        sourceImageKey ?? sent.url.flatMap(ResumableDataStore.key(for:))
    }

    /// Starts the next source after a failure with `error`, when there is one and the error is
    /// neither a cancellation nor a refusal for a constrained network (which the task answers
    /// with its low-data source: the next sources would cost as much); `false` when the job is
    /// to end with `error`.
    func fallBack(after error: any Error) -> Bool {
        guard !isDisposed, !(error is CancellationError), error as? ImagePipelineError != .networkConstrained,
              sourceIndex + 1 < request.sources.count else { return false }
        startSource(at: sourceIndex + 1)
        return true
    }

    /// The disk cache's key for a data source's bytes: its identifier's token (`CacheKeys`), as
    /// for a URL request named by that identifier; never a URL's, a processed result's or kept
    /// partial bytes'.
    nonisolated static func diskKey(forDataID id: String) -> String { CacheKeys.token(forID: id) }

    /// Calls a data source when a network slot is free, unless the disk cache has its bytes.
    private func load(_ source: ImageSource.DataSource) {
        let enqueuedAt = monotonicNow()
        let attempt = retry.beginAttempt(policy: nil)
        workItem = graph.networkQueue.enqueue(priority: priority) { [self] item in
            let task = Task { [self] in await run(source, item: item, enqueuedAt: enqueuedAt, attempt: attempt) }
            item.onCancel { task.cancel() }
        }
    }

    /// The bytes of `source`: stored ones when the request's policy reads the disk cache, else
    /// the closure's, then stored. Frees the slot, then ends the job with the outcome.
    private nonisolated func run(_ source: ImageSource.DataSource, item: WorkItem, enqueuedAt: TimeInterval,
                                 attempt: Int) async {
        let startedAt = monotonicNow()
        var timings = ImageTimings()
        timings.queued = startedAt - enqueuedAt
        // A local file is on disk already: the disk cache neither answers for it nor copies it.
        let storage = source.isStoredOnDisk ? graph.httpCache?.storage : nil
        let key = Self.diskKey(forDataID: source.id)
        let policy = request.cachePolicy
        let result: Result<FetchedData, any Error>
        do {
            let readsDisk = policy != .reloadIgnoringCacheData && policy != .reloadRevalidatingCacheData
                && !request.options.contains(.disableDiskCacheReads)
            if readsDisk, let storage, let stored = await offThePool({ try? storage.entry(forKey: key) }) {
                timings.disk = monotonicNow() - startedAt
                result = .success(try checked(FetchedData(data: stored.data, urlResponse: nil, cacheType: .disk, timings: timings)))
            } else if policy == .returnCacheDataDontLoad {
                throw ImagePipelineError.cacheMiss
            } else {
                let data = try await source.load()
                try Task.checkCancellation()
                timings.network = monotonicNow() - startedAt
                timings.attempts = attempt
                var errors: [any Error] = []
                if let storage, !data.isEmpty, data.count <= graph.configuration.maxResponseBytes,
                   !request.options.contains(.disableDiskCacheWrites) {
                    do { try await offThePool { try storage.store(data, metadata: nil, forKey: key) } } catch { errors.append(error) }
                }
                result = .success(try checked(FetchedData(data: data, urlResponse: nil, cacheType: .none, timings: timings,
                                                          storageErrors: errors)))
            }
        } catch {
            result = .failure(Task.isCancelled ? CancellationError() : error)
        }
        item.finish()
        GraphActor.sync { finish(result) }
    }
}
