// Apple platforms only; compiles to nothing elsewhere. Not compiled on this project's Linux CI.
// Needs Swift 6.2 (Xcode 26) for the main-actor isolated conformances below.
#if !compiler(>=6.2) && (canImport(UIKit) || canImport(AppKit))
#error("ShashinUI needs Swift 6.2 or later (Xcode 26): its views conform to ImageDisplaying on the main actor (SE-0470).")
#endif
#if canImport(UIKit)
import UIKit
import Shashin

/// A `UIImageView` shows what an `ImageBinding` loads, on the main actor.
///
/// The conformance is main-actor isolated (SE-0470, Swift 6.2): using a `UIImageView` as an
/// `ImageDisplaying` (making its binding, say) off the main actor does not compile.
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

extension UIImageView {
    /// Shows `image`, cross-dissolving for a fade; an animation with decoded frames plays (see
    /// `ImageAnimation.animatedImage`).
    fileprivate func shashinDisplay(_ image: PlatformImage, transition: ImageTransition, contentMode: ImageContentMode?) {
        if let contentMode { self.contentMode = contentMode.viewContentMode }
        let image = image.animation?.animatedImage ?? image
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

extension NSImageView {
    /// Shows `image`, with a layer fade for a fade.
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
