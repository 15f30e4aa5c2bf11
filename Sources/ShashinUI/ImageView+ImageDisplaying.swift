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
        shashinPlayer?.stop()
        self.image = placeholder
    }

    public func displayFailure(_ image: PlatformImage?, error: any Error) {
        shashinPlayer?.stop()
        self.image = image
    }
}

/// The associated-object key for an image view's player; only its address is used, it is never
/// written, so no lock is needed.
private nonisolated(unsafe) var playerKey: UInt8 = 0

extension UIImageView {
    /// Shows `image`, cross-dissolving for a fade, through the view's ``ImageViewTransition``
    /// for `.custom`; an animation with decoded frames plays at the image's scale (see
    /// `ImageAnimation.animatedImage(scale:)`), and a streamed one through an `AnimationPlayer`
    /// that sets each frame as it is decoded, while the view is in a window.
    fileprivate func shashinDisplay(_ image: PlatformImage, transition: ImageTransition, contentMode: ImageContentMode?) {
        if let contentMode { self.contentMode = contentMode.viewContentMode }
        shashinPlayer?.stop()
        let still = image
        let image = image.animation?.animatedImage(scale: Double(image.scale)) ?? image
        defer { playStreamed(still) }
        switch transition {
        case .none:
            self.image = image
        case .fade(let duration):
            UIView.transition(with: self, duration: duration, options: [.transitionCrossDissolve, .allowUserInteraction]) {
                self.image = image
            }
        case .custom:
            guard let custom = shashinCustomTransition else {
                self.image = image
                return
            }
            UIView.transition(with: self, duration: custom.duration, options: custom.options,
                              animations: { custom.animations(self, image) }, completion: custom.completion)
        }
    }

    /// Plays `image`'s animation when it is streamed (its frames decode while they play).
    private func playStreamed(_ image: PlatformImage) {
        guard let animation = image.animation, animation.isStreamed else { return }
        let player = shashinPlayer ?? AnimationPlayer()
        shashinPlayer = player
        player.play(animation, scale: Double(image.scale), show: { [weak self] frame in self?.image = frame },
                    isVisible: { [weak self] in self.map { $0.window != nil } })
    }

    /// The player of this view's streamed animation, made on its first one.
    private var shashinPlayer: AnimationPlayer? {
        get { objc_getAssociatedObject(self, &playerKey) as? AnimationPlayer }
        set { objc_setAssociatedObject(self, &playerKey, newValue, .OBJC_ASSOCIATION_RETAIN_NONATOMIC) }
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
/// An animation plays (decoded up front or streamed): AppKit animates only a GIF's own bitmap,
/// so an `AnimationPlayer` sets each frame in turn, for as many loops as the file says.
extension NSImageView: @MainActor ImageDisplaying {
    public func display(_ image: PlatformImage, transition: ImageTransition, contentMode: ImageContentMode?) {
        shashinDisplay(image, transition: transition, contentMode: contentMode)
    }

    public func displayPlaceholder(_ placeholder: PlatformImage?) {
        shashinPlayer?.stop()
        self.image = placeholder
    }

    public func displayFailure(_ image: PlatformImage?, error: any Error) {
        shashinPlayer?.stop()
        self.image = image
    }
}

/// The associated-object key for an image view's player; only its address is used, it is never
/// written, so no lock is needed.
private nonisolated(unsafe) var playerKey: UInt8 = 0

extension NSImageView {
    /// Shows `image`, with a layer fade for a fade, then plays its animation's frames.
    fileprivate func shashinDisplay(_ image: PlatformImage, transition: ImageTransition, contentMode: ImageContentMode?) {
        if let contentMode { self.imageScaling = contentMode.imageScaling }
        shashinPlayer?.stop()
        switch transition {
        case .none, .custom:
            self.image = image
        case .fade(let duration):
            self.wantsLayer = true
            let fade = CATransition()
            fade.type = .fade
            fade.duration = duration
            self.layer?.add(fade, forKey: "shashin.fade")
            self.image = image
        }
        guard let animation = image.animation, animation.playableFrames != nil else { return }
        let player = shashinPlayer ?? AnimationPlayer()
        shashinPlayer = player
        // Frames are drawn only while the view is in a window; playback ends with the view.
        player.play(animation, show: { [weak self] frame in self?.image = frame },
                    isVisible: { [weak self] in self.map { $0.window != nil } })
    }

    /// The player of this view's animation, made on its first animated image.
    private var shashinPlayer: AnimationPlayer? {
        get { objc_getAssociatedObject(self, &playerKey) as? AnimationPlayer }
        set { objc_setAssociatedObject(self, &playerKey, newValue, .OBJC_ASSOCIATION_RETAIN_NONATOMIC) }
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
