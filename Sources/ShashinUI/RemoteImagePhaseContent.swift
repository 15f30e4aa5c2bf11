// Apple platforms only; compiles to nothing elsewhere. Type-checked by the Apple SDK checks.
#if canImport(SwiftUI) && canImport(Combine)
import Shashin
import SwiftUI

/// The content of a ``RemoteImage`` made with separate image, placeholder and failure views:
/// the image once loaded, the failure view after a failure, the placeholder otherwise (no
/// request yet, or loading).
///
/// ```swift
/// RemoteImage(url: url) { image in image.resizable() } placeholder: { ProgressView() } failure: { _ in Image(systemName: "photo") }
/// ```
public struct RemoteImagePhaseContent<ImageContent: View, Placeholder: View, Failure: View>: View {
    let phase: RemoteImagePhase
    let content: (Image) -> ImageContent
    let placeholder: () -> Placeholder
    let failure: (any Error) -> Failure

    public var body: some View {
        switch phase {
        case .success(let image): content(image)
        case .failure(let error): failure(error)
        case .empty, .loading: placeholder()
        }
    }
}

extension RemoteImage {
    /// Loads `request` and shows `content` with the image, `placeholder` until then, and
    /// `failure` when the load fails.
    ///
    /// ```swift
    /// RemoteImage(url: url) { image in
    ///     image.resizable().scaledToFill()
    /// } placeholder: {
    ///     ProgressView()
    /// } failure: { _ in
    ///     Image(systemName: "photo")
    /// }
    /// ```
    public init<I: View, P: View, F: View>(
        request: ImageRequest?,
        @ViewBuilder content: @escaping (Image) -> I, @ViewBuilder placeholder: @escaping () -> P,
        @ViewBuilder failure: @escaping (any Error) -> F
    ) where Content == RemoteImagePhaseContent<I, P, F> {
        self.init(request: request) { phase in
            RemoteImagePhaseContent(phase: phase, content: content, placeholder: placeholder, failure: failure)
        }
    }

    /// Loads the image at `url`; see the `request` form.
    ///
    /// ```swift
    /// RemoteImage(url: url) { $0.resizable() } placeholder: { ProgressView() } failure: { _ in Image(systemName: "photo") }
    /// ```
    public init<I: View, P: View, F: View>(
        url: URL?,
        @ViewBuilder content: @escaping (Image) -> I, @ViewBuilder placeholder: @escaping () -> P,
        @ViewBuilder failure: @escaping (any Error) -> F
    ) where Content == RemoteImagePhaseContent<I, P, F> {
        self.init(request: url.map { ImageRequest(url: $0) }, content: content,
                  placeholder: placeholder, failure: failure)
    }

    /// Loads the image at `url` and shows `content` with the image, `placeholder` until then
    /// and after a failure.
    ///
    /// ```swift
    /// RemoteImage(url: url) { $0.resizable().scaledToFit() } placeholder: { Color.gray.opacity(0.2) }
    /// ```
    public init<I: View, P: View>(
        url: URL?,
        @ViewBuilder content: @escaping (Image) -> I, @ViewBuilder placeholder: @escaping () -> P
    ) where Content == RemoteImagePhaseContent<I, P, P> {
        self.init(url: url, content: content, placeholder: placeholder, failure: { _ in placeholder() })
    }
}
#endif
