// Apple platforms only; compiles to nothing elsewhere. Not compiled on this project's Linux CI.
#if canImport(UIKit)
import UIKit
import Shashin

/// A `UIImageView` shows what an `ImageBinding` loads, on the main actor.
///
/// From Swift 6.2 the conformance is main-actor isolated (SE-0470): using a `UIImageView` as an
/// `ImageDisplaying` (making its binding, say) off the main actor does not compile. Older
/// compilers get `nonisolated` requirements that trap when called off the main actor.
#if compiler(>=6.2)
extension UIImageView: @MainActor ImageDisplaying {
    public func display(_ image: PlatformImage, transition: ImageTransition, contentMode: ImageContentMode?) {
        shashinDisplay(image, transition: transition, contentMode: contentMode)
    }

    public func displayPlaceholder(_ placeholder: PlatformImage?) {
        self.image = placeholder
    }

    public func displayFailure(_ image: PlatformImage?, error: any Error) {
        self.image = image
    }
}
#else
extension UIImageView: ImageDisplaying {
    public nonisolated func display(_ image: PlatformImage, transition: ImageTransition, contentMode: ImageContentMode?) {
        MainActor.assumeIsolated { shashinDisplay(image, transition: transition, contentMode: contentMode) }
    }

    public nonisolated func displayPlaceholder(_ placeholder: PlatformImage?) {
        MainActor.assumeIsolated { self.image = placeholder }
    }

    public nonisolated func displayFailure(_ image: PlatformImage?, error: any Error) {
        MainActor.assumeIsolated { self.image = image }
    }
}
#endif

extension UIImageView {
    /// Shows `image`, cross-dissolving for a fade; the body of `display` on every compiler.
    fileprivate func shashinDisplay(_ image: PlatformImage, transition: ImageTransition, contentMode: ImageContentMode?) {
        if let contentMode { self.contentMode = contentMode.viewContentMode }
        switch transition {
        case .none:
            self.image = image
        case .fade(let duration):
            UIView.transition(with: self, duration: duration, options: [.transitionCrossDissolve, .allowUserInteraction]) {
                self.image = image
            }
        }
    }
}

extension ImageContentMode {
    /// The matching `UIView.ContentMode`.
    var viewContentMode: UIView.ContentMode {
        switch self {
        case .fill: .scaleAspectFill
        case .fit: .scaleAspectFit
        case .stretch: .scaleToFill
        case .center: .center
        }
    }
}
#elseif canImport(AppKit)
import AppKit
import Shashin

/// An `NSImageView` shows what an `ImageBinding` loads, on the main actor; see the UIKit notes.
#if compiler(>=6.2)
extension NSImageView: @MainActor ImageDisplaying {
    public func display(_ image: PlatformImage, transition: ImageTransition, contentMode: ImageContentMode?) {
        shashinDisplay(image, transition: transition, contentMode: contentMode)
    }

    public func displayPlaceholder(_ placeholder: PlatformImage?) {
        self.image = placeholder
    }

    public func displayFailure(_ image: PlatformImage?, error: any Error) {
        self.image = image
    }
}
#else
extension NSImageView: ImageDisplaying {
    public nonisolated func display(_ image: PlatformImage, transition: ImageTransition, contentMode: ImageContentMode?) {
        MainActor.assumeIsolated { shashinDisplay(image, transition: transition, contentMode: contentMode) }
    }

    public nonisolated func displayPlaceholder(_ placeholder: PlatformImage?) {
        MainActor.assumeIsolated { self.image = placeholder }
    }

    public nonisolated func displayFailure(_ image: PlatformImage?, error: any Error) {
        MainActor.assumeIsolated { self.image = image }
    }
}
#endif

extension NSImageView {
    /// Shows `image`, with a layer fade for a fade; the body of `display` on every compiler.
    fileprivate func shashinDisplay(_ image: PlatformImage, transition: ImageTransition, contentMode: ImageContentMode?) {
        if let contentMode { self.imageScaling = contentMode.imageScaling }
        switch transition {
        case .none:
            self.image = image
        case .fade(let duration):
            self.wantsLayer = true
            let fade = CATransition()
            fade.type = .fade
            fade.duration = duration
            self.layer?.add(fade, forKey: "shashin.fade")
            self.image = image
        }
    }
}

extension ImageContentMode {
    /// The closest `NSImageScaling` (AppKit has no aspect fill).
    var imageScaling: NSImageScaling {
        switch self {
        case .fill, .fit: .scaleProportionallyUpOrDown
        case .stretch: .scaleAxesIndependently
        case .center: .scaleNone
        }
    }
}
#endif
