// Apple platforms only; compiles to nothing elsewhere. Not compiled on this project's Linux CI.
#if canImport(SwiftUI) && canImport(Combine)
import Combine
import Shashin
import SwiftUI

/// Where a ``RemoteImage`` is.
public enum RemoteImagePhase {
    /// No request.
    case empty
    /// Loading; nothing to show yet.
    case loading
    /// The image, from memory (shown in the first frame) or loaded.
    case success(Image)
    /// The load failed.
    case failure(any Error)

    /// The image, in `.success`.
    public var image: Image? {
        if case .success(let image) = self { image } else { nil }
    }
}

/// The observable state behind ``RemoteImage``: an `ImageBinding` whose target publishes a
/// phase. Use it directly for views that draw the image themselves. Its `ImageDisplaying`
/// conformance is main-actor isolated (Swift 6.2, like the image views').
///
/// An animated image plays: `.success` is published again with each frame at its time, for
/// as many loops as the file says, from `load` until `cancel` (a ``RemoteImage`` cancels when
/// it leaves the screen and plays again from the first frame when it comes back).
@MainActor
public final class RemoteImageLoader: ObservableObject, @MainActor ImageDisplaying {
    /// The current phase.
    @Published public private(set) var phase: RemoteImagePhase = .empty
    private var binding: ImageBinding?
    private let player = AnimationPlayer()
    /// The animation of the image shown, kept to play again after `cancel`.
    private var animation: ImageAnimation?

    /// Creates an idle loader.
    public init() {}

    /// The phase to draw for `request` on `pipeline` now, without waiting for ``load(_:pipeline:)``:
    /// ``phase`` once this loader has taken that request (same cache key, same pipeline), else
    /// `.success` with the image when a synchronous memory-cache lookup finds it, else `.loading`
    /// (`.empty` without a request). A view calls it from `body`, so a memory hit is drawn in the
    /// first frame, before the load starts, and the image of a previous request is never drawn
    /// for a new one. A load stopped by ``cancel()`` before its image came looks in memory again.
    public func phase(for request: ImageRequest?, pipeline: ImagePipeline = .shared) -> RemoteImagePhase {
        if let binding, binding.pipeline === pipeline, binding.request?.cacheKey == request?.cacheKey,
           phase.image != nil || binding.state != .deferred {
            return phase
        }
        guard let request else { return .empty }
        if let image = pipeline.cachedImage(for: request) { return .success(Self.image(image)) }
        return .loading
    }

    /// Loads `request` through `pipeline`, cancelling the previous load (on whichever pipeline);
    /// a memory hit becomes `.success` before this returns.
    public func load(_ request: ImageRequest?, pipeline: ImagePipeline = .shared) {
        if let binding, binding.pipeline !== pipeline {
            binding.cancel()
            self.binding = nil
        }
        let binding = self.binding ?? ImageBinding(target: self, pipeline: pipeline, options: .init(transition: .none))
        self.binding = binding
        binding.setRequest(request)
        // The same image still shown (the binding keeps it): its animation starts again.
        if !player.isPlaying, let animation {
            phase = .success(Self.image(animation.frames[0].bitmap.platformImage))
            play(animation)
        }
    }

    /// Stops loading, and stops an animation on the frame it shows.
    public func cancel() {
        binding?.cancel()
        player.stop()
    }

    public func display(_ image: PlatformImage, transition: ImageTransition, contentMode: ImageContentMode?) {
        player.stop()
        phase = .success(Self.image(image))
        animation = image.animation.flatMap { $0.frames.count > 1 ? $0 : nil }
        if let animation { play(animation) }
    }

    public func displayPlaceholder(_ placeholder: PlatformImage?) {
        stopAnimation()
        phase = .loading
    }

    public func displayFailure(_ image: PlatformImage?, error: any Error) {
        stopAnimation()
        phase = .failure(error)
    }

    public func clearImage() {
        stopAnimation()
        phase = .empty
    }

    private func play(_ animation: ImageAnimation) {
        player.play(animation, show: { [weak self] frame in self?.phase = .success(Self.image(frame)) },
                    isVisible: { [weak self] in self.map { _ in true } })
    }

    private func stopAnimation() {
        player.stop()
        animation = nil
    }

    private static func image(_ image: PlatformImage) -> Image {
        #if canImport(UIKit)
        Image(uiImage: image)
        #else
        Image(nsImage: image)
        #endif
    }
}
#endif
