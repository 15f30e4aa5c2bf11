// Apple platforms only; compiles to nothing elsewhere. Not compiled on this project's Linux CI.
#if canImport(UIKit)
import UIKit
import Shashin

/// A `UIImageView` shows what an `ImageBinding` loads. Bindings drive their targets from the
/// main actor in an app; these requirements are `nonisolated` only to satisfy the UI-neutral
/// protocol and trap if called from elsewhere.
extension UIImageView: ImageDisplaying {
    public nonisolated func display(_ image: PlatformImage, transition: ImageTransition, contentMode: ImageContentMode?) {
        MainActor.assumeIsolated {
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

    public nonisolated func displayPlaceholder(_ placeholder: PlatformImage?) {
        MainActor.assumeIsolated { self.image = placeholder }
    }

    public nonisolated func displayFailure(_ image: PlatformImage?, error: any Error) {
        MainActor.assumeIsolated { self.image = image }
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

/// An `NSImageView` shows what an `ImageBinding` loads; see the UIKit notes.
extension NSImageView: ImageDisplaying {
    public nonisolated func display(_ image: PlatformImage, transition: ImageTransition, contentMode: ImageContentMode?) {
        MainActor.assumeIsolated {
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

    public nonisolated func displayPlaceholder(_ placeholder: PlatformImage?) {
        MainActor.assumeIsolated { self.image = placeholder }
    }

    public nonisolated func displayFailure(_ image: PlatformImage?, error: any Error) {
        MainActor.assumeIsolated { self.image = image }
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
