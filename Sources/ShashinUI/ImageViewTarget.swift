// Apple platforms only; compiles to nothing elsewhere. Type-checked by the Apple SDK check.
#if !compiler(>=6.2) && (canImport(UIKit) || canImport(AppKit))
#error("ShashinUI needs Swift 6.2 or later (Xcode 26).")
#endif
#if canImport(UIKit) || canImport(AppKit)
#if canImport(UIKit)
import UIKit
#else
import AppKit
#endif
import ObjectiveC
import Shashin

/// Shows what an image view's binding loads in the view: the image (fading, or through a
/// custom transition), the placeholder, the failure image; an animation (decoded up front or
/// streamed) then plays through an `AnimationPlayer`, which sets each frame for its own duration,
/// honours the loop count and draws only while the view is in a window. Holds the view weakly;
/// the view keeps it (`ImageViewLoading`).
@MainActor
final class ImageViewTarget: ImageDisplaying {
    private weak var view: ShashinImageView?
    private let player = AnimationPlayer()

    init(view: ShashinImageView) {
        self.view = view
    }

    func display(_ image: PlatformImage, transition: ImageTransition, contentMode: ViewContentMode?) {
        guard let view else { return }
        player.stop()
        #if canImport(UIKit)
        if let contentMode { view.contentMode = contentMode.uiViewContentMode }
        if let custom = transition.customAnimation as? UIKitImageTransition {
            UIView.transition(with: view, duration: transition.duration, options: custom.options,
                              animations: { custom.animations(view, image) }, completion: custom.completion)
        } else if transition.isFade {
            UIView.transition(with: view, duration: transition.duration, options: [.transitionCrossDissolve, .allowUserInteraction]) {
                view.image = image
            }
        } else {
            view.image = image
        }
        #else
        if let contentMode { view.imageScaling = contentMode.imageScaling }
        if let custom = transition.customAnimation as? AppKitImageTransition {
            NSAnimationContext.runAnimationGroup { context in
                context.duration = transition.duration
                context.allowsImplicitAnimation = true
                custom.animations(view, image)
            }
        } else if transition.isFade {
            view.wantsLayer = true
            let fade = CATransition()
            fade.type = .fade
            fade.duration = transition.duration
            view.layer?.add(fade, forKey: "shashin.fade")
            view.image = image
        } else {
            view.image = image
        }
        #endif
        play(image)
    }

    func displayPlaceholder(_ placeholder: PlatformImage?) {
        player.stop()
        view?.image = placeholder
    }

    func displayFailure(_ image: PlatformImage?, error: any Error) {
        player.stop()
        view?.image = image
    }

    /// Plays `image`'s animation, when it has frames to play, at the image's scale.
    private func play(_ image: PlatformImage) {
        guard let animation = image.animation, animation.playableFrames != nil else { return }
        #if canImport(UIKit)
        let scale = Double(image.scale)
        #else
        let scale = 1.0
        #endif
        player.play(animation, scale: scale, show: { [weak view] frame in view?.image = frame },
                    isVisible: { [weak view] in view.map { $0.window != nil } })
    }
}

/// An image view's binding and the target it shows through, kept by the view as an associated
/// object (the binding holds its target weakly, the target its view weakly).
@MainActor
final class ImageViewLoading {
    let target: ImageViewTarget
    let binding: ImageBinding

    init(view: ShashinImageView) {
        target = ImageViewTarget(view: view)
        binding = ImageBinding(target: target)
        #if canImport(UIKit) && !os(watchOS)
        binding.adapterStateObserver = { [weak view] state in view?.shashinUpdateIndicator(state) }
        #endif
    }
}

/// The associated-object key of a view's loading; only its address is used.
@MainActor private var loadingKey: UInt8 = 0

extension ShashinImageView {
    /// The view's binding and target, made on first use.
    var shashinLoading: ImageViewLoading {
        if let loading = shashinExistingLoading { return loading }
        let loading = ImageViewLoading(view: self)
        objc_setAssociatedObject(self, &loadingKey, loading, .OBJC_ASSOCIATION_RETAIN_NONATOMIC)
        return loading
    }

    /// The view's loading if it has one: what `cancel()` reads, so that a cell whose view never
    /// loaded makes none on reuse.
    var shashinExistingLoading: ImageViewLoading? {
        objc_getAssociatedObject(self, &loadingKey) as? ImageViewLoading
    }
}

#if canImport(UIKit)
extension ViewContentMode {
    /// The matching `UIView.ContentMode`.
    var uiViewContentMode: UIView.ContentMode {
        switch self {
        case .scaleAspectFill: .scaleAspectFill
        case .scaleAspectFit: .scaleAspectFit
        case .scaleToFill: .scaleToFill
        case .center: .center
        }
    }
}
#else
extension ViewContentMode {
    /// The closest `NSImageScaling` (AppKit has no aspect fill).
    var imageScaling: NSImageScaling {
        switch self {
        case .scaleAspectFill, .scaleAspectFit: .scaleProportionallyUpOrDown
        case .scaleToFill: .scaleAxesIndependently
        case .center: .scaleNone
        }
    }
}
#endif
#endif
