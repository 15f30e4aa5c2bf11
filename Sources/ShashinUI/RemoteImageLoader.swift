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
@MainActor
public final class RemoteImageLoader: ObservableObject, @MainActor ImageDisplaying {
    /// The current phase.
    @Published public private(set) var phase: RemoteImagePhase = .empty
    private var binding: ImageBinding?

    /// Creates an idle loader.
    public init() {}

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
    }

    /// Stops loading.
    public func cancel() {
        binding?.cancel()
    }

    public func display(_ image: PlatformImage, transition: ImageTransition, contentMode: ImageContentMode?) {
        #if canImport(UIKit)
        phase = .success(Image(uiImage: image))
        #else
        phase = .success(Image(nsImage: image))
        #endif
    }

    public func displayPlaceholder(_ placeholder: PlatformImage?) {
        phase = .loading
    }

    public func displayFailure(_ image: PlatformImage?, error: any Error) {
        phase = .failure(error)
    }

    public func clearImage() {
        phase = .empty
    }
}
#endif
