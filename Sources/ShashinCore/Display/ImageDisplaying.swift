/// What a view must do to show images loaded by an ``ImageBinding``: show the image (with or
/// without a transition), show a placeholder, show a failure image — and, optionally, tell a
/// progressive preview from the final image (``displayPreview(_:contentMode:)``).
///
/// The display layer is UI-neutral and not tied to the main actor: a binding calls its target
/// synchronously from the actor that drives the binding (the main actor in an app, any actor in
/// a headless program), never from another thread. UIKit and AppKit views conform in
/// `ShashinUI`; anything else that shows pictures (a test double, a terminal, a headless cell)
/// can conform too.
///
/// ```swift
/// final class Cell: ImageDisplaying {
///     var shown: PlatformImage?
///     func display(_ image: PlatformImage, transition: ImageTransition, contentMode: ImageContentMode?) { shown = image }
///     func displayPlaceholder(_ placeholder: PlatformImage?) { shown = placeholder }
///     func displayFailure(_ image: PlatformImage?, error: any Error) { shown = image }
/// }
/// ```
public protocol ImageDisplaying: AnyObject {
    /// Shows the loaded `image`. `transition` is `.none` for a memory-cache hit (it must appear
    /// in this frame) and the binding's transition otherwise; `contentMode` is the binding's
    /// hint, `nil` to leave the view's own.
    func display(_ image: PlatformImage, transition: ImageTransition, contentMode: ImageContentMode?)
    /// Shows `placeholder` while an image loads; `nil` shows nothing.
    func displayPlaceholder(_ placeholder: PlatformImage?)
    /// Shows `image` after a load failed with `error`; `nil` shows nothing.
    func displayFailure(_ image: PlatformImage?, error: any Error)
    /// Shows nothing: the binding was given no request. Defaults to `displayPlaceholder(nil)`.
    func clearImage()
    /// Shows a progressive preview of the image still loading: a coarser version of the final
    /// image, shown at once (no transition), which a later preview or the final image (through
    /// ``display(_:transition:contentMode:)``) replaces. Called only while the request loads,
    /// never after its final image. Defaults to `display(image, transition: .none, contentMode:)`;
    /// a view implements it to draw previews apart from the final image (to mark them, or to
    /// count them).
    func displayPreview(_ image: PlatformImage, contentMode: ImageContentMode?)
}

extension ImageDisplaying {
    /// Shows nothing, through `displayPlaceholder(nil)`.
    public func clearImage() { displayPlaceholder(nil) }

    /// Shows the preview as an image, through `display(image, transition: .none, contentMode:)`.
    public func displayPreview(_ image: PlatformImage, contentMode: ImageContentMode?) {
        display(image, transition: .none, contentMode: contentMode)
    }
}

/// How a newly loaded image replaces what the view showed.
public enum ImageTransition: Sendable, Hashable {
    /// Swap at once.
    case none
    /// Cross-fade over `duration` seconds.
    case fade(duration: Double)
    /// The view's own animation, which its adapter was given (in `ShashinUI`, a closure given
    /// to `setImage(with:…)` or to `RemoteImage.transition(_:)`); a view without one swaps at once.
    case custom
}

/// How the view should fit an image in its bounds: a hint the target maps to its own
/// content mode (`UIView.ContentMode`, `NSImageScaling`, SwiftUI's `ContentMode`).
public enum ImageContentMode: Sendable, Hashable {
    /// Scale to fill the bounds, cropping what overflows (aspect fill).
    case fill
    /// Scale to fit inside the bounds, letterboxed (aspect fit).
    case fit
    /// Stretch to the bounds, ignoring the aspect ratio.
    case stretch
    /// No scaling, centred.
    case center
}
