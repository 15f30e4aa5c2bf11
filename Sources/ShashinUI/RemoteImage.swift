// Apple platforms only; compiles to nothing elsewhere. Type-checked by the Apple SDK checks.
#if canImport(SwiftUI) && canImport(Combine)
import Shashin
import SwiftUI

/// A SwiftUI view that loads an image through the pipeline and draws each phase with your
/// content closure. A memory hit shows in the first frame: until its loader has taken the
/// request, the phase drawn comes from a synchronous memory-cache lookup
/// (``RemoteImageLoader/phase(for:options:)``). The load starts when the view appears and again
/// when the request's cache key (or the pipeline) changes; when the view disappears it is
/// cancelled (or see ``onDisappear(_:)``). An animated GIF, WebP or APNG plays: the closure gets
/// each frame in turn as `.success`, while the view is on screen. `.loading` carries the
/// download's progress.
///
/// It follows `ImageLoadingOptions.shared` as image views do (the pipeline, the transition: a
/// 0.25 s fade for images not from memory); the modifiers change them for this view.
///
/// ```swift
/// RemoteImage(request: ImageRequest(url: url, thumbnail: .init(maxPixelSize: 300))) { phase in
///     switch phase {
///     case .success(let image): image.resizable().scaledToFill()
///     case .failure: Image(systemName: "exclamationmark.triangle")
///     case .empty, .loading: Color.gray.opacity(0.2)
///     }
/// }
/// .priority(.high)
/// .onDisappear(.lowerPriority(to: .veryLow))
/// .onSuccess { response in print(response.cacheType) }
/// ```
public struct RemoteImage<Content: View>: View {
    private let request: ImageRequest?
    private let content: (RemoteImagePhase) -> Content
    private var settings = RemoteImageSettings()
    @StateObject private var loader = RemoteImageLoader()
    @Environment(\.displayScale) private var displayScale

    /// Loads `request` (nothing when `nil`).
    ///
    /// ```swift
    /// RemoteImage(request: ImageRequest(url: url, thumbnail: .init(maxPixelSize: 400))) { phase in
    ///     phase.image?.resizable()
    /// }
    /// ```
    public init(request: ImageRequest?, @ViewBuilder content: @escaping (RemoteImagePhase) -> Content) {
        self.request = request
        self.content = content
    }

    /// Loads the image at `url`.
    ///
    /// ```swift
    /// RemoteImage(url: url) { phase in phase.image?.resizable() ?? Image(systemName: "photo") }
    /// ```
    public init(url: URL?, @ViewBuilder content: @escaping (RemoteImagePhase) -> Content) {
        self.init(request: url.map { ImageRequest(url: $0) }, content: content)
    }

    public var body: some View {
        if let mode = settings.thumbnailMode {
            // The view's own size decides the thumbnail: nothing loads before layout gives one.
            GeometryReader { proxy in
                phaseView(for: request.flatMap { request in
                    proxy.size.width > 0 && proxy.size.height > 0
                        ? settings.prepared(request).sized(to: proxy.size, scale: displayScale, contentMode: mode) : nil
                })
                .frame(width: proxy.size.width, height: proxy.size.height)
            }
        } else {
            phaseView(for: request.map(settings.prepared))
        }
    }

    /// The content for `request`'s phase, loading it on appear and whenever its cache key changes.
    @MainActor private func phaseView(for request: ImageRequest?) -> some View {
        let options = settings.options
        let resolved = options.merging(over: .shared)
        // `task(id:)` (iOS 15, macOS 12) runs on appear and whenever the id changes; the load it
        // starts outlives the task, so `onDisappear` stops it (or lowers its priority).
        return content(loader.phase(for: request, options: options))
            .id(loader.contentID)
            .transition(resolved.transition(for: .none).swiftUITransition)
            .task(id: LoadID(cacheKey: request?.cacheKey, pipeline: resolved.resolvedPipeline)) { @MainActor [loader, request, settings] in
                loader.load(request, options: settings.options, callbacks: settings.callbacks)
            }
            .onAppear { loader.appear() }
            .onDisappear { [settings] in loader.disappear(settings.disappearBehavior) }
    }
}

extension RemoteImage {
    /// Loads through `pipeline` instead of the shared options' (else `ImagePipeline.shared`).
    ///
    /// ```swift
    /// RemoteImage(url: url) { $0.image?.resizable() }.pipeline(galleryPipeline)
    /// ```
    public func pipeline(_ pipeline: ImagePipeline) -> Self {
        var copy = self
        copy.settings.pipeline = pipeline
        return copy
    }

    /// How a loaded image appears: `.fade(duration:)` (SwiftUI's opacity transition), a SwiftUI
    /// transition and animation of your own (`.custom(_:animation:)`), or `.immediate`; default the
    /// shared options' (a 0.25 s fade). Images from the memory cache appear at once unless `forced`.
    ///
    /// ```swift
    /// RemoteImage(url: url) { $0.image?.resizable() }
    ///     .imageTransition(.custom(.scale.combined(with: .opacity), animation: .spring()))
    /// ```
    public func imageTransition(_ transition: ImageTransition, forced: Bool = false) -> Self {
        var copy = self
        copy.settings.transition = transition
        copy.settings.forcesTransition = forced
        return copy
    }

    /// Loads at `priority`, whatever the request says.
    ///
    /// ```swift
    /// RemoteImage(url: url) { $0.image?.resizable() }.priority(.veryHigh)
    /// ```
    public func priority(_ priority: ImageRequest.Priority) -> Self {
        var copy = self
        copy.settings.priority = priority
        return copy
    }

    /// What the load does while the view is off screen; default `.cancel`. It comes back (a
    /// cancelled load restarts, a lowered priority is restored) when the view reappears.
    ///
    /// ```swift
    /// RemoteImage(url: url) { $0.image?.resizable() }.onDisappear(.lowerPriority(to: .veryLow))
    /// ```
    public func onDisappear(_ behavior: ImageBinding.DisappearBehavior) -> Self {
        var copy = self
        copy.settings.disappearBehavior = behavior
        return copy
    }

    /// Runs `processors` on the image after decoding (they become part of the request and its
    /// cache key), after the request's own.
    ///
    /// ```swift
    /// RemoteImage(url: url) { $0.image?.resizable() }.processors([.circle])
    /// ```
    public func processors(_ processors: [any ImageProcessing]) -> Self {
        var copy = self
        copy.settings.processors = processors
        return copy
    }

    /// Decodes a thumbnail the size of this view, in points at the screen's scale, which the
    /// image fits inside (`.aspectFit`) or covers (`.aspectFill`): a 100 pt view on a 3× screen
    /// gets a 300 px image at scale 3. The view then takes all the space offered (it measures
    /// itself with a `GeometryReader`), so give it a frame; nothing loads until it has a size.
    ///
    /// ```swift
    /// RemoteImage(url: url) { $0.image?.resizable() }.thumbnail(contentMode: .aspectFit).frame(width: 80, height: 80)
    /// ```
    public func thumbnail(contentMode: ImageContentMode = .aspectFill) -> Self {
        var copy = self
        copy.settings.thumbnailMode = contentMode
        return copy
    }

    /// Called once when the load of the current request starts (at once for a memory hit).
    ///
    /// ```swift
    /// RemoteImage(url: url) { $0.image?.resizable() }.onStart { request in print("loading \(request)") }
    /// ```
    public func onStart(_ action: @escaping (ImageRequest) -> Void) -> Self {
        var copy = self
        copy.settings.callbacks.onStart = action
        return copy
    }

    /// Called with each progress report of the current download.
    ///
    /// ```swift
    /// RemoteImage(url: url) { $0.image?.resizable() }.onProgress { progress in model.fraction = progress.fraction }
    /// ```
    public func onProgress(_ action: @escaping (ImageTask.Progress) -> Void) -> Self {
        var copy = self
        copy.settings.callbacks.onProgress = action
        return copy
    }

    /// Called once when the current request's image is shown.
    ///
    /// ```swift
    /// RemoteImage(url: url) { $0.image?.resizable() }.onSuccess { response in print(response.cacheType) }
    /// ```
    public func onSuccess(_ action: @escaping (ImageResponse) -> Void) -> Self {
        var copy = self
        copy.settings.callbacks.onSuccess = action
        return copy
    }

    /// Called once when the current request fails (not when it is cancelled).
    ///
    /// ```swift
    /// RemoteImage(url: url) { $0.image?.resizable() }.onFailure { error in print("failed: \(error)") }
    /// ```
    public func onFailure(_ action: @escaping (any Error) -> Void) -> Self {
        var copy = self
        copy.settings.callbacks.onFailure = action
        return copy
    }

    /// Called once when the current request ends, after `onSuccess` or `onFailure`.
    ///
    /// ```swift
    /// RemoteImage(url: url) { $0.image?.resizable() }.onCompletion { result in log(result) }
    /// ```
    public func onCompletion(_ action: @escaping (Result<ImageResponse, any Error>) -> Void) -> Self {
        var copy = self
        copy.settings.callbacks.onCompletion = action
        return copy
    }
}

/// A SwiftUI transition of the app's own, held by an `ImageTransition`.
final class SwiftUIImageTransition {
    let transition: AnyTransition
    let animation: Animation

    init(transition: AnyTransition, animation: Animation) {
        self.transition = transition
        self.animation = animation
    }
}

extension ImageTransition {
    /// A SwiftUI transition of your own for ``RemoteImage``: `transition` run in `animation`.
    /// Image views and buttons show the image at once with it.
    ///
    /// ```swift
    /// RemoteImage(url: url) { $0.image?.resizable() }
    ///     .imageTransition(.custom(.scale.combined(with: .opacity), animation: .spring()))
    /// ```
    public static func custom(_ transition: AnyTransition, animation: Animation) -> ImageTransition {
        .custom(SwiftUIImageTransition(transition: transition, animation: animation), duration: 0)
    }

    /// The SwiftUI transition of a new image's view: the custom one, else opacity.
    var swiftUITransition: AnyTransition {
        (customAnimation as? SwiftUIImageTransition)?.transition ?? .opacity
    }

    /// The SwiftUI animation a phase change runs in: an ease-in-out of a fade's duration, a custom
    /// transition's own; `nil` for `.immediate` (and another framework's custom transition).
    var swiftUIAnimation: Animation? {
        if isFade { return .easeInOut(duration: duration) }
        return (customAnimation as? SwiftUIImageTransition)?.animation
    }
}

/// What the modifiers of a ``RemoteImage`` set.
struct RemoteImageSettings {
    var pipeline: ImagePipeline?
    var transition: ImageTransition?
    var forcesTransition: Bool?
    var priority: ImageRequest.Priority?
    var disappearBehavior = ImageBinding.DisappearBehavior.cancel
    var processors: [any ImageProcessing] = []
    var thumbnailMode: ImageContentMode?
    var callbacks = ImageLoadCallbacks()

    /// The options these settings make, over `ImageLoadingOptions.shared`.
    var options: ImageLoadingOptions {
        ImageLoadingOptions(pipeline: pipeline, transition: transition, forcesTransition: forcesTransition, priority: priority)
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
