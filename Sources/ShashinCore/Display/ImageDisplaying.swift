/// What a view must do to show images loaded by an ``ImageBinding``: show the image (with or
/// without a transition), show a placeholder, show a failure image — and, optionally, tell a
/// progressive preview from the final image (``displayPreview(_:contentMode:)``).
///
/// The display layer is UI-neutral and runs on the main actor, in an app and in a headless
/// program alike (Linux tools and tests conform their own views). `ShashinUI` shows images in
/// UIKit, AppKit and SwiftUI views through targets of its own; conform anything else that shows
/// pictures (a test double, a terminal, a headless cell).
///
/// ```swift
/// final class Cell: ImageDisplaying {
///     var shown: PlatformImage?
///     func display(_ image: PlatformImage, transition: ImageTransition, contentMode: ViewContentMode?) { shown = image }
///     func displayPlaceholder(_ placeholder: PlatformImage?) { shown = placeholder }
///     func displayFailure(_ image: PlatformImage?, error: any Error) { shown = image }
/// }
/// ```
@MainActor
public protocol ImageDisplaying: AnyObject {
    /// Shows the loaded `image`. `transition` is `.immediate` for a memory-cache hit (it must appear
    /// in this frame) and the options' transition otherwise; `contentMode` is the options' mode,
    /// `nil` to leave the view's own.
    func display(_ image: PlatformImage, transition: ImageTransition, contentMode: ViewContentMode?)
    /// Shows `placeholder` while an image loads; `nil` shows nothing.
    func displayPlaceholder(_ placeholder: PlatformImage?)
    /// Shows `image` after a load failed with `error`; `nil` shows nothing.
    func displayFailure(_ image: PlatformImage?, error: any Error)
    /// Shows nothing: the binding was given no request. Defaults to `displayPlaceholder(nil)`.
    func clearImage()
    /// Shows a progressive preview of the image still loading: a coarser version of the final
    /// image, shown at once (`.immediate`), which a later preview or the final image (through
    /// ``display(_:transition:contentMode:)``) replaces. Called only while the request loads,
    /// never after its final image. Defaults to `display(image, transition: .immediate, contentMode:)`;
    /// a view implements it to draw previews apart from the final image (to mark them, or to
    /// count them).
    func displayPreview(_ image: PlatformImage, contentMode: ViewContentMode?)
}

extension ImageDisplaying {
    /// Shows nothing, through `displayPlaceholder(nil)`.
    public func clearImage() { displayPlaceholder(nil) }

    /// Shows the preview as an image, through `display(image, transition: .immediate, contentMode:)`.
    public func displayPreview(_ image: PlatformImage, contentMode: ViewContentMode?) {
        display(image, transition: .immediate, contentMode: contentMode)
    }
}

/// How a view fits an image in its bounds: the view's own display mode, which a target maps to
/// `UIView.ContentMode`, `NSImageScaling` or SwiftUI's `ContentMode`. Not the size an image is
/// decoded or resized to: that is ``ImageContentMode``.
public enum ViewContentMode: Sendable, Hashable {
    /// Scale to fill the bounds, cropping what overflows (`UIView.ContentMode.scaleAspectFill`).
    case scaleAspectFill
    /// Scale to fit inside the bounds, letterboxed (`.scaleAspectFit`).
    case scaleAspectFit
    /// Stretch to the bounds, ignoring the aspect ratio (`.scaleToFill`).
    case scaleToFill
    /// No scaling, centred (`.center`).
    case center
}
