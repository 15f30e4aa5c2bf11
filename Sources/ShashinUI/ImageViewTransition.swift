// UIKit only; compiles to nothing elsewhere. Not compiled on this project's Linux CI.
#if canImport(UIKit)
import ObjectiveC
import Shashin
import UIKit

/// A transition of your own for images a `UIImageView` loads: `animations` runs inside
/// `UIView.transition(with:duration:options:)` and sets the image itself. Like the fade, it
/// runs for loaded images only, not for memory-cache hits, unless the binding's options force
/// it (`forcesTransition`).
///
/// ```swift
/// let flip = ImageViewTransition(duration: 0.3, options: .transitionFlipFromLeft) { view, image in view.image = image }
/// imageView.shashin.setImage(with: url, transition: flip)
/// ```
public struct ImageViewTransition {
    /// How long the transition lasts, in seconds.
    public var duration: TimeInterval
    /// UIKit's transition options (`.transitionCrossDissolve`, `.transitionFlipFromLeft`, …).
    public var options: UIView.AnimationOptions
    /// Shows `image` in the view; runs inside the transition's animation block.
    public var animations: @MainActor (UIImageView, UIImage) -> Void
    /// Called when the transition ends (`true` when it finished).
    public var completion: (@MainActor (Bool) -> Void)?

    /// Creates a transition; `options` default `.transitionCrossDissolve`.
    public init(duration: TimeInterval, options: UIView.AnimationOptions = .transitionCrossDissolve,
                animations: @escaping @MainActor (UIImageView, UIImage) -> Void,
                completion: (@MainActor (Bool) -> Void)? = nil) {
        self.duration = duration
        self.options = options
        self.animations = animations
        self.completion = completion
    }
}

/// Holds a view's transition as an object, which is what associated objects store.
private final class TransitionBox {
    let transition: ImageViewTransition
    init(_ transition: ImageViewTransition) { self.transition = transition }
}

/// The associated-object key of a view's custom transition; only its address is used.
@MainActor private var transitionKey: UInt8 = 0

extension UIImageView {
    /// The transition `ImageTransition.custom` runs in this view; `nil` swaps at once.
    @MainActor var shashinCustomTransition: ImageViewTransition? {
        get { (objc_getAssociatedObject(self, &transitionKey) as? TransitionBox)?.transition }
        set { objc_setAssociatedObject(self, &transitionKey, newValue.map(TransitionBox.init), .OBJC_ASSOCIATION_RETAIN_NONATOMIC) }
    }
}
#endif
