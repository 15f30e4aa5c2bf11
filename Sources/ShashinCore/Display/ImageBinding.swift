/// Loads one request at a time into one view, safely for reused views: a result that arrives for
/// a request the view no longer wants is dropped, never shown.
///
/// Setting a request cancels the previous one, shows a memory-cache hit at once (in this frame,
/// with no transition, without a placeholder first), and otherwise shows the placeholder and
/// then the image with the options' transition when it arrives. A `nil` request clears the view.
/// With progressive decoding on (the request's or the pipeline's `isProgressiveDecodingEnabled`),
/// each preview replaces the placeholder or the previous preview with no transition (through the
/// target's ``ImageDisplaying/displayPreview(_:contentMode:)``), and the
/// final image replaces the last preview with no placeholder in between; a preview of a request
/// the view no longer wants is never shown.
///
/// How images are shown comes from ``options``, over ``ImageLoadingOptions/shared``: the pipeline,
/// the placeholder, the transition and the rest, read at each ``setRequest(_:deferringNetwork:completion:)``.
///
/// ```swift
/// let binding = ImageBinding(target: cell, options: .init(placeholder: grey, transition: .fade(duration: 0.2)))
/// binding.setRequest(ImageRequest(url: url, thumbnail: .init(maxPixelSize: 300)))
/// ```
///
/// A binding lives on the main actor, as views do, in an app and in a headless program alike
/// (Linux tools and tests drive bindings from the main actor too); its target, its callbacks and
/// the completion of every load run there.
@MainActor
public final class ImageBinding {
    /// Where a binding is with its current request.
    public enum State: Sendable, Hashable {
        /// No request.
        case empty
        /// The request waits for ``startDeferredLoad(priority:)``: it was set with
        /// `deferringNetwork: true` and was not in memory, or its load was cancelled.
        case deferred
        /// Loading.
        case loading
        /// The image is shown; `cacheType` says which cache answered, if any.
        case success(ImageResponse.CacheType)
        /// The load failed; the failure image is shown.
        case failure
    }

    /// The pipeline of the current request: the one its options named (``options``, then
    /// ``ImageLoadingOptions/shared``), else `ImagePipeline.shared`, as they were when it was set.
    public private(set) var pipeline: ImagePipeline
    /// The view; held weakly, because a view usually owns its binding. Something else must keep
    /// it alive: once it is gone, loads still run but nothing is shown.
    public private(set) weak var target: (any ImageDisplaying)?
    /// How images are shown, over ``ImageLoadingOptions/shared``; changes apply from the next request.
    public var options: ImageLoadingOptions
    /// ``options`` merged over the shared ones, as they were when the current request was set.
    private var resolved: ImageLoadingOptions
    /// Called after every image or failure the binding shows, memory hits included (never for
    /// a cancelled or superseded load): to count sources, log timings, or resize a view.
    public var onCompletion: ((Result<ImageResponse, any Error>) -> Void)?
    /// Called on the binding's actor each time ``state`` changes, with the new state: to show
    /// and hide an activity indicator (`.loading`) without polling. Not called for a value equal
    /// to the current one (a new request while one loads stays `.loading`).
    public var onStateChange: ((State) -> Void)?
    /// Called on the binding's actor with each progress report of the current download, for
    /// every request (a request's own ``ImageLoadCallbacks/onProgress`` hears only of it). Set it
    /// before the request: progress is watched only for loads that start while someone listens.
    public var onProgress: ((ImageTask.Progress) -> Void)?
    /// The current download's progress: `nil` before the first report, and again after every
    /// change of request; only for watched loads (see ``onProgress``).
    public private(set) var progress: ImageTask.Progress?

    /// The request the view wants now; `nil` after `setRequest(nil)`.
    public private(set) var request: ImageRequest?
    /// Where the current request is; ``onStateChange`` reports each change.
    public private(set) var state: State = .empty {
        didSet {
            guard state != oldValue else { return }
            adapterStateObserver?(state)
            onStateChange?(state)
        }
    }
    /// ``onStateChange`` for the package's own view adapters (an activity indicator), so they
    /// leave the public hook to the app.
    package var adapterStateObserver: ((State) -> Void)?

    private var task: ImageTask?
    private var waiter: Task<Void, Never>?
    /// Shows the current load's previews; only when the request wants previews.
    private var previewWaiter: Task<Void, Never>?
    /// Bumped on every change of request: a completion carrying an older value is stale.
    private var generation = 0
    /// What the binding last put in the view, so it never shows the same placeholder twice.
    private var shown = Shown.nothing
    /// Reports the current load's progress; only when someone listens.
    private var progressWaiter: Task<Void, Never>?
    /// The callbacks given with the current request: each called once, then cleared, and
    /// dropped uncalled when another request replaces this one.
    private var callbacks = ImageLoadCallbacks()
    /// Whether the current request's `onStart` was called.
    private var didReportStart = false
    /// The priority of a load ``disappear(_:)`` lowered, for ``appear()``.
    var priorityBeforeDisappearing: ImageRequest.Priority?
    /// Whether ``disappear(_:)`` cancelled the current load, for ``appear()``.
    var isStoppedWhileHidden = false
    /// The response shown for the current request, for a completion handler that arrives with
    /// the same request after it was shown.
    private var shownResponse: ImageResponse?

    private enum Shown { case nothing, placeholder, preview, image, failure }

    /// Creates a binding that shows images in `target`, with `options` over the shared ones.
    public init(target: any ImageDisplaying, options: ImageLoadingOptions = ImageLoadingOptions()) {
        self.target = target
        self.options = options
        self.resolved = options.merging(over: .shared)
        self.pipeline = resolved.resolvedPipeline
    }

    deinit {
        task?.cancel()
        waiter?.cancel()
        previewWaiter?.cancel()
        progressWaiter?.cancel()
    }

    /// Makes `request` the one the view wants. Cancels the previous load; shows a memory-cache
    /// hit now; otherwise shows the placeholder and loads — or, with `deferringNetwork`, waits
    /// for ``startDeferredLoad(priority:)`` (what a fast fling wants). `nil` clears the view.
    ///
    /// The request the binding already has (the same image: cache key, headers, cache options,
    /// the same pipeline) while it loads or shows it changes only the priority: the load goes on, the
    /// view is left as it is (no placeholder, no second download). After a failure it loads again;
    /// while deferred, it shows the image if it has reached the memory cache since.
    ///
    /// `completion` is called once, on this actor, with the image or the error this request
    /// ends with — before `setRequest` returns for a memory hit, or for the same request already
    /// shown. It is never called once another request (or `nil`) replaces this one, nor for a
    /// load stopped by ``cancel()`` until ``startDeferredLoad(priority:)`` resumes it;
    /// setting the same request again with a new completion replaces the pending one.
    /// ``setRequest(_:deferringNetwork:callbacks:)`` gives start, progress, success
    /// and failure too.
    public func setRequest(_ request: ImageRequest?, deferringNetwork: Bool = false,
                           completion: ((Result<ImageResponse, any Error>) -> Void)? = nil) {
        setRequest(request, deferringNetwork: deferringNetwork, callbacks: ImageLoadCallbacks(onCompletion: completion))
    }

    /// ``setRequest(_:deferringNetwork:completion:)`` with the request's
    /// ``ImageLoadCallbacks``: each runs once for this request, never once another replaced it.
    /// Setting the request the binding already has with callbacks replaces the pending ones;
    /// when its image is already shown they run at once (start, success, completion).
    public func setRequest(_ request: ImageRequest?, deferringNetwork: Bool = false, callbacks: ImageLoadCallbacks) {
        let resolved = options.merging(over: .shared)
        let pipeline = resolved.resolvedPipeline
        let isSame = pipeline === self.pipeline
            && (request.flatMap { request in self.request.map { Self.isSameImage(request, $0) } } ?? false)
        if var request, isSame {
            if let priority = resolved.priority { request.priority = priority }
            switch state {
            case .loading:
                self.request = request
                task?.priority = request.priority
                if !callbacks.isEmpty {
                    self.callbacks = callbacks
                    if didReportStart { callbacks.onStart?(request) }
                }
                return
            case .success:
                self.request = request
                if let shownResponse {
                    callbacks.onStart?(request)
                    callbacks.finish(.success(shownResponse))
                }
                return
            case .deferred where deferringNetwork && pipeline.cachedImage(for: request) == nil:
                // Still waiting; an image that reached memory meanwhile is shown below instead.
                self.request = request
                if !callbacks.isEmpty { self.callbacks = callbacks }
                return
            case .deferred, .failure, .empty:
                break
            }
        }
        cancelLoad()
        generation &+= 1
        self.resolved = resolved
        self.pipeline = pipeline
        // The same request loading again keeps pending callbacks unless new ones are given.
        if !isSame || !callbacks.isEmpty {
            self.callbacks = callbacks
            didReportStart = false
        }
        shownResponse = nil
        progress = nil
        priorityBeforeDisappearing = nil
        isStoppedWhileHidden = false
        guard var request else {
            self.request = nil
            state = .empty
            shown = .nothing
            target?.clearImage()
            return
        }
        if let priority = resolved.priority { request.priority = priority }
        self.request = request
        if deferringNetwork {
            if let image = pipeline.cachedImage(for: request) {
                reportStart(request)
                show(.success(ImageResponse(image: image, request: request, cacheType: .memory)))
            } else {
                state = .deferred
                showPlaceholder()
            }
            return
        }
        start(request)
    }

    /// Starts loading a deferred request (see ``State/deferred``), at `priority` when given.
    /// Returns whether a load started or a memory hit was shown; `false` when nothing was deferred.
    @discardableResult
    public func startDeferredLoad(priority: ImageRequest.Priority? = nil) -> Bool {
        guard state == .deferred, var request else { return false }
        if let priority { request.priority = priority }
        self.request = request
        generation &+= 1
        start(request)
        return true
    }

    /// The priority of the load in progress; `nil` when nothing loads. Setting it moves the
    /// queued work (shared work runs at the highest priority of those waiting for it).
    public var priority: ImageRequest.Priority? {
        get { task?.priority }
        set {
            guard let newValue else { return }
            task?.priority = newValue
            request?.priority = newValue
        }
    }

    /// Stops the load in progress, keeping what the view shows; the request becomes
    /// ``State/deferred`` and can be started again.
    public func cancel() {
        guard state == .loading else { return }
        cancelLoad()
        generation &+= 1
        state = .deferred
    }

    // MARK: Private

    private func start(_ request: ImageRequest) {
        reportStart(request)
        switch pipeline.loadImage(request) {
        case .cached(let response):
            show(.success(response))
        case .inProgress(let task):
            state = .loading
            showPlaceholder()
            self.task = task
            let generation = self.generation
            if onProgress != nil || callbacks.onProgress != nil {
                progressWaiter = Task { [weak self] in
                    for await progress in task.progress { self?.report(progress, generation: generation) }
                }
            }
            waiter = Task { [weak self] in
                let result: Result<ImageResponse, any Error>
                do { result = .success(try await task.response) } catch { result = .failure(error) }
                self?.complete(result, generation: generation)
            }
            if request.isProgressiveDecodingEnabled ?? pipeline.configuration.isProgressiveDecodingEnabled {
                previewWaiter = Task { [weak self] in
                    for await preview in task.previews { self?.showPreview(preview, generation: generation) }
                }
            }
        }
    }

    /// Shows a preview of the load in progress, unless the view wants another request now or
    /// the final image is already shown.
    private func showPreview(_ preview: ImageResponse, generation: Int) {
        guard generation == self.generation, state == .loading else { return }
        shown = .preview
        target?.displayPreview(preview.image, contentMode: resolved.contentMode)
    }

    /// Reports progress of the load in progress, unless the view wants another request now or
    /// the load has ended.
    private func report(_ progress: ImageTask.Progress, generation: Int) {
        guard generation == self.generation, state == .loading else { return }
        self.progress = progress
        onProgress?(progress)
        callbacks.onProgress?(progress)
    }

    /// Calls the current request's `onStart`, once.
    private func reportStart(_ request: ImageRequest) {
        guard !didReportStart else { return }
        didReportStart = true
        callbacks.onStart?(request)
    }

    private func complete(_ result: Result<ImageResponse, any Error>, generation: Int) {
        // The view wants another request now (or none): this result is not for it.
        guard generation == self.generation else { return }
        task = nil
        waiter = nil
        previewWaiter?.cancel()
        previewWaiter = nil
        progressWaiter?.cancel()
        progressWaiter = nil
        if case .failure(let error) = result, error is CancellationError {
            state = .deferred
            return
        }
        show(result)
    }

    private func show(_ result: Result<ImageResponse, any Error>) {
        switch result {
        case .success(let response):
            shownResponse = response
            state = .success(response.cacheType)
            shown = .image
            target?.display(response.image, transition: resolved.transition(for: response.cacheType), contentMode: resolved.contentMode)
        case .failure(let error):
            state = .failure
            shown = .failure
            target?.displayFailure(resolved.failureImage, error: error)
        }
        onCompletion?(result)
        let callbacks = self.callbacks
        self.callbacks = ImageLoadCallbacks()
        callbacks.finish(result)
    }

    private func showPlaceholder() {
        if shown == .placeholder || ((resolved.keepsCurrentImageWhileLoading ?? false) && shown == .image) { return }
        shown = .placeholder
        target?.displayPlaceholder(resolved.placeholder)
    }

    /// Whether two requests load the same image the same way, so one load serves both.
    private static func isSameImage(_ lhs: ImageRequest, _ rhs: ImageRequest) -> Bool {
        lhs.cacheKey == rhs.cacheKey && lhs.options == rhs.options && lhs.cachePolicy == rhs.cachePolicy
            && JobGraph.fetchKey(for: lhs) == JobGraph.fetchKey(for: rhs)
    }

    private func cancelLoad() {
        task?.cancel()
        task = nil
        waiter?.cancel()
        waiter = nil
        previewWaiter?.cancel()
        previewWaiter = nil
        progressWaiter?.cancel()
        progressWaiter = nil
    }
}
