/// What an ``ImageBinding`` tells about one request, on the binding's actor. Each closure runs
/// at most once for its request (``onProgress`` once per progress report), in the order
/// start, progress, then success or failure, then completion; none runs once another request
/// (or `nil`) has replaced this one, so a reused cell hears only of its current row.
///
/// ```swift
/// binding.setRequest(request, callbacks: ImageLoadCallbacks(
///     onStart: { _ in spinner.start() },
///     onCompletion: { _ in spinner.stop() }))
/// ```
public struct ImageLoadCallbacks {
    /// The binding took the request: at once for a memory hit (before ``onSuccess``), when the
    /// load starts otherwise (for a deferred request, when it is started).
    public var onStart: ((ImageRequest) -> Void)?
    /// More bytes arrived for the download.
    public var onProgress: ((ImageTask.Progress) -> Void)?
    /// The image is shown; it came from the response's `source`.
    public var onSuccess: ((ImageResponse) -> Void)?
    /// The load failed (the failure image, if any, is shown). Not called for a cancelled load.
    public var onFailure: ((any Error) -> Void)?
    /// After ``onSuccess`` or ``onFailure``, with the same outcome.
    public var onCompletion: ((Result<ImageResponse, any Error>) -> Void)?

    /// Creates callbacks; each is `nil` (not called) by default.
    public init(onStart: ((ImageRequest) -> Void)? = nil, onProgress: ((ImageTask.Progress) -> Void)? = nil,
                onSuccess: ((ImageResponse) -> Void)? = nil, onFailure: ((any Error) -> Void)? = nil,
                onCompletion: ((Result<ImageResponse, any Error>) -> Void)? = nil) {
        self.onStart = onStart
        self.onProgress = onProgress
        self.onSuccess = onSuccess
        self.onFailure = onFailure
        self.onCompletion = onCompletion
    }

    /// Whether no closure is set.
    var isEmpty: Bool {
        onStart == nil && onProgress == nil && onSuccess == nil && onFailure == nil && onCompletion == nil
    }

    /// Reports the end of the load: success or failure, then completion.
    func finish(_ result: Result<ImageResponse, any Error>) {
        switch result {
        case .success(let response): onSuccess?(response)
        case .failure(let error): onFailure?(error)
        }
        onCompletion?(result)
    }
}
