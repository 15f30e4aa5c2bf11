// Apple platforms only; compiles to nothing elsewhere. Type-checked by the Apple SDK check.
#if canImport(UIKit) || canImport(AppKit)
#if canImport(UIKit)
import UIKit
#else
import AppKit
#endif
import Shashin

#if canImport(UIKit)
/// A UIKit transition of the app's own, held by an `ImageTransition`.
final class UIKitImageTransition {
    let options: UIView.AnimationOptions
    let animations: @MainActor (UIImageView, UIImage) -> Void
    let completion: (@MainActor (Bool) -> Void)?

    init(options: UIView.AnimationOptions, animations: @escaping @MainActor (UIImageView, UIImage) -> Void,
         completion: (@MainActor (Bool) -> Void)?) {
        self.options = options
        self.animations = animations
        self.completion = completion
    }
}

extension ImageTransition {
    /// A transition of your own for image views: `animations` runs inside
    /// `UIView.transition(with:duration:options:)` and sets the image itself. Buttons and
    /// `RemoteImage` show the image at once with it.
    ///
    /// ```swift
    /// let flip = ImageTransition.custom(duration: 0.3, options: .transitionFlipFromLeft) { view, image in
    ///     view.image = image
    /// }
    /// imageView.shashin.setImage(with: url, options: ImageLoadingOptions(transition: flip))
    /// ```
    public static func custom(duration: TimeInterval, options: UIView.AnimationOptions = .transitionCrossDissolve,
                              animations: @escaping @MainActor (UIImageView, UIImage) -> Void,
                              completion: (@MainActor (Bool) -> Void)? = nil) -> ImageTransition {
        .custom(UIKitImageTransition(options: options, animations: animations, completion: completion), duration: duration)
    }
}
#else
/// An AppKit transition of the app's own, held by an `ImageTransition`.
final class AppKitImageTransition {
    let animations: @MainActor (NSImageView, NSImage) -> Void

    init(animations: @escaping @MainActor (NSImageView, NSImage) -> Void) {
        self.animations = animations
    }
}

extension ImageTransition {
    /// A transition of your own for image views: `animations` runs in an `NSAnimationContext`
    /// group of `duration` seconds, with implicit animation on, and sets the image itself.
    /// Buttons and `RemoteImage` show the image at once with it.
    ///
    /// ```swift
    /// let grow = ImageTransition.custom(duration: 0.3) { view, image in
    ///     view.image = image
    ///     view.animator().alphaValue = 1
    /// }
    /// imageView.shashin.setImage(with: url, options: ImageLoadingOptions(transition: grow))
    /// ```
    public static func custom(duration: TimeInterval, animations: @escaping @MainActor (NSImageView, NSImage) -> Void) -> ImageTransition {
        .custom(AppKitImageTransition(animations: animations), duration: duration)
    }
}
#endif
#endif
