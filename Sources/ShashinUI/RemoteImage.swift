// Apple platforms only; compiles to nothing elsewhere. Not compiled on this project's Linux CI.
#if canImport(SwiftUI) && canImport(Combine)
import Shashin
import SwiftUI

/// A SwiftUI view that loads an image through the pipeline and draws each phase with your
/// content closure. A memory hit shows in the first frame: until its loader has taken the
/// request, the phase drawn comes from a synchronous memory-cache lookup
/// (``RemoteImageLoader/phase(for:pipeline:)``). The load starts when the view appears and again
/// when the request's cache key (or the pipeline) changes; when the view disappears it is
/// cancelled (or see ``onDisappear(_:)``). An animated GIF, WebP or APNG plays: the closure gets
/// each frame in turn as `.success`, while the view is on screen. `.loading` carries the
/// download's progress.
///
/// ```swift
/// RemoteImage(request: ImageRequest(url: url, thumbnail: .init(maxPixelSize: 300))) { phase in
///     switch phase {
///     case .success(let image): image.resizable().scaledToFill()
///     case .failure: Image(systemName: "exclamationmark.triangle")
///     case .empty, .loading: Color.gray.opacity(0.2)
///     }
/// }
/// .imageTransition(.fade(duration: 0.25))
/// .priority(.high)
/// .onDisappear(.lowerPriority(to: .veryLow))
/// .onSuccess { response in print(response.source) }
/// ```
public struct RemoteImage<Content: View>: View {
    private let request: ImageRequest?
    private let pipeline: ImagePipeline
    private let content: (RemoteImagePhase) -> Content
    private var settings = RemoteImageSettings()
    @StateObject private var loader = RemoteImageLoader()
    @Environment(\.displayScale) private var displayScale

    /// Loads `request` (nothing when `nil`) through `pipeline`.
    public init(request: ImageRequest?, pipeline: ImagePipeline = .shared,
                @ViewBuilder content: @escaping (RemoteImagePhase) -> Content) {
        self.request = request
        self.pipeline = pipeline
        self.content = content
    }

    /// Loads the image at `url`.
    public init(url: URL?, pipeline: ImagePipeline = .shared,
                @ViewBuilder content: @escaping (RemoteImagePhase) -> Content) {
        self.init(request: url.map { ImageRequest(url: $0) }, pipeline: pipeline, content: content)
    }

    public var body: some View {
        if let mode = settings.thumbnailMode {
            // The view's own size decides the thumbnail: nothing loads before layout gives one.
            GeometryReader { proxy in
                phaseView(for: request.flatMap { settings.prepared($0).sized(toView: proxy.size, scale: displayScale,
                                                                              contentMode: mode) })
                    .frame(width: proxy.size.width, height: proxy.size.height)
            }
        } else {
            phaseView(for: request.map(settings.prepared))
        }
    }

    /// The content for `request`'s phase, loading it on appear and whenever its cache key changes.
    @MainActor private func phaseView(for request: ImageRequest?) -> some View {
        // `task(id:)` (iOS 15, macOS 12) runs on appear and whenever the id changes; the load it
        // starts outlives the task, so `onDisappear` stops it (or lowers its priority).
        content(loader.phase(for: request, pipeline: pipeline))
            .id(loader.contentID)
            .transition(settings.swiftUITransition)
            .task(id: LoadID(cacheKey: request?.cacheKey, pipeline: pipeline)) { @MainActor [loader, request, pipeline, settings] in
                loader.customAnimation = settings.customAnimation
                loader.load(request, pipeline: pipeline, options: settings.options, callbacks: settings.callbacks)
            }
            .onAppear { loader.appear() }
            .onDisappear { [settings] in loader.disappear(settings.disappearBehavior) }
    }
}

extension RemoteImage {
    /// How a loaded image appears: `.fade(duration:)` (SwiftUI's opacity transition), a
    /// SwiftUI transition and animation of your own (`.custom`), or `.none` (default). Images
    /// from the memory cache appear at once unless `forced`.
    ///
    /// ```swift
    /// RemoteImage(url: url) { $0.image?.resizable() }
    ///     .imageTransition(.custom(.scale.combined(with: .opacity), animation: .spring()))
    /// ```
    public func imageTransition(_ transition: RemoteImageTransition, forced: Bool = false) -> Self {
        var copy = self
        copy.settings.transition = transition
        copy.settings.forcesTransition = forced
        return copy
    }

    /// Loads at `priority`, whatever the request says.
    public func priority(_ priority: ImageRequest.Priority) -> Self {
        var copy = self
        copy.settings.priority = priority
        return copy
    }

    /// What the load does while the view is off screen; default `.cancel`. It comes back (a
    /// cancelled load restarts, a lowered priority is restored) when the view reappears.
    public func onDisappear(_ behavior: ImageBinding.DisappearBehavior) -> Self {
        var copy = self
        copy.settings.disappearBehavior = behavior
        return copy
    }

    /// Runs `processors` on the image after decoding (they become part of the request and its
    /// cache key), after the request's own.
    public func processors(_ processors: [any ImageProcessing]) -> Self {
        var copy = self
        copy.settings.processors = processors
        return copy
    }

    /// Decodes a thumbnail the size of this view, in points at the screen's scale, which the
    /// image fits inside (`.aspectFit`) or covers (`.aspectFill`): a 100 pt view on a 3× screen
    /// gets a 300 px image at scale 3. The view then takes all the space offered (it measures
    /// itself with a `GeometryReader`), so give it a frame; nothing loads until it has a size.
    public func thumbnail(contentMode: ThumbnailOptions.ContentMode = .aspectFill) -> Self {
        var copy = self
        copy.settings.thumbnailMode = contentMode
        return copy
    }

    /// Called once when the load of the current request starts (at once for a memory hit).
    public func onStart(_ action: @escaping (ImageRequest) -> Void) -> Self {
        var copy = self
        copy.settings.callbacks.onStart = action
        return copy
    }

    /// Called with each progress report of the current download.
    public func onProgress(_ action: @escaping (ImageTask.Progress) -> Void) -> Self {
        var copy = self
        copy.settings.callbacks.onProgress = action
        return copy
    }

    /// Called once when the current request's image is shown.
    public func onSuccess(_ action: @escaping (ImageResponse) -> Void) -> Self {
        var copy = self
        copy.settings.callbacks.onSuccess = action
        return copy
    }

    /// Called once when the current request fails (not when it is cancelled).
    public func onFailure(_ action: @escaping (any Error) -> Void) -> Self {
        var copy = self
        copy.settings.callbacks.onFailure = action
        return copy
    }

    /// Called once when the current request ends, after `onSuccess` or `onFailure`.
    public func onCompletion(_ action: @escaping (Result<ImageResponse, any Error>) -> Void) -> Self {
        var copy = self
        copy.settings.callbacks.onCompletion = action
        return copy
    }
}


/// How a ``RemoteImage``'s loaded image appears (``RemoteImage/imageTransition(_:forced:)``).
public enum RemoteImageTransition {
    /// At once.
    case none
    /// A cross-fade over `duration` seconds.
    case fade(duration: Double)
    /// `transition` run in `animation`.
    case custom(AnyTransition, animation: Animation)
}

/// What the modifiers of a ``RemoteImage`` set.
struct RemoteImageSettings {
    var transition = RemoteImageTransition.none
    var forcesTransition = false
    var priority: ImageRequest.Priority?
    var disappearBehavior = ImageBinding.DisappearBehavior.cancel
    var processors: [any ImageProcessing] = []
    var thumbnailMode: ThumbnailOptions.ContentMode?
    var callbacks = ImageLoadCallbacks()

    /// The binding's options these settings make.
    var options: ImageBinding.Options {
        let transition: ImageTransition = switch self.transition {
        case .none: .none
        case .fade(let duration): .fade(duration: duration)
        case .custom: .custom
        }
        return ImageBinding.Options(transition: transition, forcesTransition: forcesTransition, priority: priority)
    }

    /// The SwiftUI transition of a new image's view.
    var swiftUITransition: AnyTransition {
        switch transition {
        case .none, .fade: .opacity
        case .custom(let transition, _): transition
        }
    }

    /// The animation of a `.custom` transition.
    var customAnimation: Animation? {
        if case .custom(_, let animation) = transition { animation } else { nil }
    }

    /// `request` with these settings' processors added.
    func prepared(_ request: ImageRequest) -> ImageRequest {
        guard !processors.isEmpty else { return request }
        var request = request
        request.processors += processors
        return request
    }
}

/// What a ``RemoteImage`` loads: another cache key or another pipeline starts a new load.
private struct LoadID: Equatable {
    let cacheKey: ImageCacheKey?
    /// Compared by identity; held, so no other pipeline can take its address while SwiftUI keeps
    /// this value to compare with the next.
    let pipeline: ImagePipeline

    static func == (lhs: LoadID, rhs: LoadID) -> Bool {
        lhs.cacheKey == rhs.cacheKey && lhs.pipeline === rhs.pipeline
    }
}
#endif
