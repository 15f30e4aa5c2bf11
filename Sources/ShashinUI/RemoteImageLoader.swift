// Apple platforms only; compiles to nothing elsewhere. Type-checked by the Apple SDK checks.
#if canImport(SwiftUI) && canImport(Combine)
import Combine
import Shashin
import SwiftUI

/// Where a ``RemoteImage`` is.
///
/// ```swift
/// RemoteImage(url: url) { phase in
///     switch phase {
///     case .success(let image): image.resizable()
///     case .loading(let progress): ProgressView(value: progress?.fraction ?? 0)
///     case .empty, .failure: Color.gray
///     }
/// }
/// ```
public enum RemoteImagePhase {
    /// No request.
    case empty
    /// Loading; nothing to show yet. `progress` is the download's once bytes have arrived,
    /// `nil` before (and for a load from the disk cache).
    case loading(progress: ImageTask.Progress?)
    /// The image, from memory (shown in the first frame) or loaded.
    case success(Image)
    /// The load failed.
    case failure(any Error)

    /// The image, in `.success`.
    public var image: Image? {
        if case .success(let image) = self { image } else { nil }
    }

    /// The download's progress, in `.loading` once bytes arrived.
    public var progress: ImageTask.Progress? {
        if case .loading(let progress) = self { progress } else { nil }
    }
}

/// The observable state behind ``RemoteImage``: an `ImageBinding` whose target publishes a
/// phase. Use it directly for views that draw the image themselves (Nuke's `FetchImage`).
///
/// ```swift
/// @StateObject private var avatar = RemoteImageLoader()
/// var body: some View {
///     (avatar.phase.image ?? Image(systemName: "person")).resizable()
///         .task { avatar.load(ImageRequest(url: url)) }
/// }
/// ```
///
/// An animated image plays (decoded up front or streamed, see `AnimationDelivery`): `.success`
/// is published again with each frame at its time, late frames dropped, for as many loops as
/// the file says, from `load` until `cancel` (a ``RemoteImage`` cancels when
/// it leaves the screen and plays again from the first frame when it comes back).
@MainActor
public final class RemoteImageLoader: ObservableObject {
    /// The current phase.
    @Published public private(set) var phase: RemoteImagePhase = .empty
    /// Changes each time an image is shown with a transition, so a view can give the new image
    /// its own identity for SwiftUI's `transition`.
    @Published public private(set) var contentID = 0
    /// The SwiftUI animation the last phase change ran in; `nil` for none.
    public private(set) var animation: Animation?
    private lazy var target = Target(loader: self)
    private var binding: ImageBinding?
    private let player = AnimationPlayer()
    /// The animation of the image shown, kept to play again after `cancel`.
    private var imageAnimation: ImageAnimation?
    /// The image shown whose animation plays: its first frame, shown again when it restarts.
    private var animatedImage: PlatformImage?
    /// The pixels per point of the image shown, which its animation's frames are shown at.
    private var scale: Double = 1

    /// Creates an idle loader.
    ///
    /// ```swift
    /// @StateObject private var avatar = RemoteImageLoader()
    /// ```
    public init() {}

    /// The phase to draw for `request` now, without waiting for ``load(_:options:callbacks:)``:
    /// ``phase`` once this loader has taken that request (same cache key, same pipeline: the
    /// options', over `ImageLoadingOptions.shared`), else `.success` with the image when a
    /// synchronous memory-cache lookup finds it, else `.loading` (`.empty` without a request). A
    /// view calls it from `body`, so a memory hit is drawn in the first frame, before the load
    /// starts, and the image of a previous request is never drawn for a new one. A load stopped
    /// by ``cancel()`` before its image came looks in memory again.
    ///
    /// ```swift
    /// var body: some View {   // a memory hit is drawn in the first frame
    ///     (avatar.phase(for: request).image ?? Image(systemName: "person")).resizable()
    ///         .task { avatar.load(request) }
    /// }
    /// ```
    public func phase(for request: ImageRequest?, options: ImageLoadingOptions = ImageLoadingOptions()) -> RemoteImagePhase {
        let pipeline = options.merging(over: .shared).resolvedPipeline
        if let binding, binding.pipeline === pipeline, binding.request?.cacheKey == request?.cacheKey,
           phase.image != nil || binding.state != .deferred {
            return phase
        }
        guard let request else { return .empty }
        if let image = pipeline.cachedImage(for: request) { return .success(Self.image(image)) }
        return .loading(progress: nil)
    }

    /// Loads `request`, cancelling the previous load; a memory hit becomes `.success` before
    /// this returns. `options` (over `ImageLoadingOptions.shared`: the pipeline, the transition,
    /// the priority) apply from this request; `callbacks` run once for it, never once another
    /// replaced it.
    ///
    /// ```swift
    /// avatar.load(ImageRequest(url: url), options: ImageLoadingOptions(priority: .high))
    /// ```
    public func load(_ request: ImageRequest?, options: ImageLoadingOptions = ImageLoadingOptions(),
                     callbacks: ImageLoadCallbacks = ImageLoadCallbacks()) {
        let binding = self.binding ?? ImageBinding(target: target, options: options)
        self.binding = binding
        binding.options = options
        binding.onProgress = { [weak self] progress in
            guard let self, case .loading = self.phase else { return }
            self.phase = .loading(progress: progress)
        }
        binding.setRequest(request, callbacks: callbacks)
        // The same image still shown (the binding keeps it): its animation starts again.
        if !player.isPlaying, let imageAnimation, let animatedImage {
            phase = .success(Self.image(animatedImage, scale: scale))
            play(imageAnimation)
        }
    }

    /// Stops loading, and stops an animation on the frame it shows.
    ///
    /// ```swift
    /// avatar.cancel()
    /// ```
    public func cancel() {
        binding?.cancel()
        player.stop()
    }

    /// The view left the screen: the load follows `behavior` (see `ImageBinding.DisappearBehavior`)
    /// and an animation stops on the frame it shows.
    ///
    /// ```swift
    /// .onDisappear { avatar.disappear(.lowerPriority(to: .veryLow)) }
    /// ```
    public func disappear(_ behavior: ImageBinding.DisappearBehavior) {
        binding?.disappear(behavior)
        player.stop()
    }

    /// The view is on screen again: undoes ``disappear(_:)`` (a cancelled load starts again, a
    /// lowered priority comes back).
    ///
    /// ```swift
    /// .onAppear { avatar.appear() }
    /// ```
    public func appear() {
        binding?.appear()
    }

    fileprivate func display(_ image: PlatformImage, transition: ImageTransition) {
        player.stop()
        scale = Self.scale(of: image)
        let change = transition.swiftUIAnimation
        animation = change
        if let change {
            withAnimation(change) {
                contentID &+= 1
                phase = .success(Self.image(image))
            }
        } else {
            phase = .success(Self.image(image))
        }
        imageAnimation = image.animation.flatMap { $0.playableFrames != nil ? $0 : nil }
        animatedImage = imageAnimation == nil ? nil : image
        if let imageAnimation { play(imageAnimation) }
    }

    fileprivate func displayPlaceholder() {
        stopAnimation()
        phase = .loading(progress: binding?.progress)
    }

    fileprivate func displayFailure(_ error: any Error) {
        stopAnimation()
        phase = .failure(error)
    }

    fileprivate func clearImage() {
        stopAnimation()
        phase = .empty
    }

    private func play(_ animation: ImageAnimation) {
        let scale = scale
        player.play(animation, show: { [weak self] frame in self?.phase = .success(Self.image(frame, scale: scale)) },
                    isVisible: { [weak self] in self.map { _ in true } })
    }

    private func stopAnimation() {
        player.stop()
        imageAnimation = nil
        animatedImage = nil
    }

    private static func scale(of image: PlatformImage) -> Double {
        #if canImport(UIKit)
        Double(image.scale)
        #else
        image.size.width > 0 ? Double(image.pixelWidthForScale) / Double(image.size.width) : 1
        #endif
    }

    /// `image` as a SwiftUI image at `scale` pixels per point (default: its own).
    private static func image(_ image: PlatformImage, scale: Double? = nil) -> Image {
        #if canImport(UIKit)
        guard let scale, scale != Double(image.scale), let cgImage = image.cgImage else { return Image(uiImage: image) }
        return Image(uiImage: UIImage(cgImage: cgImage, scale: scale, orientation: .up))
        #else
        guard let scale, scale != 1, let cgImage = image.cgImage(forProposedRect: nil, context: nil, hints: nil) else {
            return Image(nsImage: image)
        }
        return Image(nsImage: NSImage(cgImage: cgImage, size: NSSize(width: Double(cgImage.width) / scale,
                                                                      height: Double(cgImage.height) / scale)))
        #endif
    }
}

/// The loader's `ImageDisplaying` side, kept internal so the loader's own API is only its phase.
@MainActor
private final class Target: ImageDisplaying {
    private weak var loader: RemoteImageLoader?

    init(loader: RemoteImageLoader) { self.loader = loader }

    func display(_ image: PlatformImage, transition: ImageTransition, contentMode: ViewContentMode?) {
        loader?.display(image, transition: transition)
    }
    func displayPlaceholder(_ placeholder: PlatformImage?) { loader?.displayPlaceholder() }
    func displayFailure(_ image: PlatformImage?, error: any Error) { loader?.displayFailure(error) }
    func clearImage() { loader?.clearImage() }
}

#if canImport(AppKit) && !canImport(UIKit)
extension NSImage {
    /// The width of the image's bitmap in pixels, for its scale.
    fileprivate var pixelWidthForScale: Int {
        cgImage(forProposedRect: nil, context: nil, hints: nil)?.width ?? Int(size.width)
    }
}
#endif
#endif
