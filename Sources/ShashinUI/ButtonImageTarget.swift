// Apple platforms only; compiles to nothing elsewhere. Not compiled on this project's Linux CI.
// The AppKit branch is not type-checked by the iOS SDK check either.
#if (canImport(UIKit) && !os(watchOS)) || canImport(AppKit)
#if canImport(UIKit)
import UIKit
/// The button type `button.shashin` extends: `UIButton` on iOS, tvOS and visionOS.
public typealias ShashinButton = UIButton
#else
import AppKit
/// The button type `button.shashin` extends: `NSButton` on macOS.
public typealias ShashinButton = NSButton
#endif
import ObjectiveC
import Shashin

/// One of a button's images: on UIKit the image or the background image of one
/// `UIControl.State`; on AppKit the image or the alternate image.
struct ButtonImageSlot: Hashable {
    /// `UIControl.State.rawValue` (0 on AppKit).
    var state: UInt
    /// The background image (UIKit) or the alternate image (AppKit).
    var isSecondary: Bool
}

/// Shows what an `ImageBinding` loads in one of a button's images. The button keeps it (and it
/// keeps its binding); it holds the button weakly.
@MainActor
final class ButtonImageTarget: @MainActor ImageDisplaying {
    private weak var button: ShashinButton?
    private let slot: ButtonImageSlot
    private(set) var binding: ImageBinding?

    init(button: ShashinButton, slot: ButtonImageSlot, pipeline: ImagePipeline) {
        self.button = button
        self.slot = slot
        self.binding = nil
        self.binding = ImageBinding(target: self, pipeline: pipeline)
    }

    func display(_ image: PlatformImage, transition: ImageTransition, contentMode: ImageContentMode?) {
        guard let button else { return }
        switch transition {
        case .none, .custom:
            set(image)
        case .fade(let duration):
            #if canImport(UIKit)
            UIView.transition(with: button, duration: duration, options: [.transitionCrossDissolve, .allowUserInteraction]) {
                self.set(image)
            }
            #else
            button.wantsLayer = true
            let fade = CATransition()
            fade.type = .fade
            fade.duration = duration
            button.layer?.add(fade, forKey: "shashin.fade")
            set(image)
            #endif
        }
    }

    func displayPlaceholder(_ placeholder: PlatformImage?) { set(placeholder) }

    func displayFailure(_ image: PlatformImage?, error: any Error) { set(image) }

    private func set(_ image: PlatformImage?) {
        guard let button else { return }
        #if canImport(UIKit)
        let state = UIControl.State(rawValue: slot.state)
        if slot.isSecondary { button.setBackgroundImage(image, for: state) } else { button.setImage(image, for: state) }
        #else
        if slot.isSecondary { button.alternateImage = image } else { button.image = image }
        #endif
    }
}

/// A button's targets by slot, which is what associated objects store.
@MainActor
final class ButtonImageTargets {
    var targets: [ButtonImageSlot: ButtonImageTarget] = [:]
}

/// The associated-object key of a button's targets; only its address is used.
@MainActor private var targetsKey: UInt8 = 0

/// `button.shashin`: loads images into a button's images through bindings the button keeps,
/// one per image (per `UIControl.State`, image or background), each reuse-safe as an image
/// view's is.
///
/// ```swift
/// button.shashin.setImage(with: avatarURL, for: .normal)
/// button.shashin.setBackgroundImage(with: backgroundURL, for: .highlighted)
/// ```
@MainActor
public struct ShashinButtonExtension {
    /// The button.
    public let button: ShashinButton

    /// The binding behind one of the button's images on `pipeline`, made on first use (a new
    /// one, replacing and cancelling the old, when asked with another pipeline).
    func target(_ slot: ButtonImageSlot, pipeline: ImagePipeline) -> ButtonImageTarget {
        let all = objc_getAssociatedObject(button, &targetsKey) as? ButtonImageTargets ?? ButtonImageTargets()
        objc_setAssociatedObject(button, &targetsKey, all, .OBJC_ASSOCIATION_RETAIN_NONATOMIC)
        if let current = all.targets[slot], current.binding?.pipeline === pipeline { return current }
        all.targets[slot]?.binding?.cancel()
        let target = ButtonImageTarget(button: button, slot: slot, pipeline: pipeline)
        all.targets[slot] = target
        return target
    }

    func load(_ request: ImageRequest?, into slot: ButtonImageSlot, pipeline: ImagePipeline,
              options: ImageBinding.Options, callbacks: ImageLoadCallbacks) {
        guard let binding = target(slot, pipeline: pipeline).binding else { return }
        binding.options = options
        binding.setRequest(request, callbacks: callbacks)
    }

    /// Stops every load of the button; what it shows stays.
    public func cancel() {
        guard let all = objc_getAssociatedObject(button, &targetsKey) as? ButtonImageTargets else { return }
        for target in all.targets.values { target.binding?.cancel() }
    }
}

extension ShashinButton {
    /// Shashin's entry point for buttons: `button.shashin.setImage(with: url)`.
    @MainActor public var shashin: ShashinButtonExtension { ShashinButtonExtension(button: self) }
}

#if canImport(UIKit)
extension ShashinButtonExtension {
    /// Loads `request` as the button's image for `state` (default `.normal`), cancelling what
    /// that image loaded before; `nil` clears it. Each state loads on its own. `callbacks` run
    /// once, never once a later call for the same state replaced the request.
    public func setImage(with request: ImageRequest?, for state: UIControl.State = .normal,
                         pipeline: ImagePipeline = .shared, options: ImageBinding.Options = .init(),
                         callbacks: ImageLoadCallbacks = ImageLoadCallbacks()) {
        load(request, into: ButtonImageSlot(state: state.rawValue, isSecondary: false), pipeline: pipeline,
             options: options, callbacks: callbacks)
    }

    /// Loads the image at `url` as the button's image for `state`.
    public func setImage(with url: URL?, for state: UIControl.State = .normal, pipeline: ImagePipeline = .shared,
                         options: ImageBinding.Options = .init(), callbacks: ImageLoadCallbacks = ImageLoadCallbacks()) {
        setImage(with: url.map { ImageRequest(url: $0) }, for: state, pipeline: pipeline, options: options, callbacks: callbacks)
    }

    /// Loads `request` as the button's background image for `state` (default `.normal`); as
    /// `setImage(with:for:)` otherwise.
    public func setBackgroundImage(with request: ImageRequest?, for state: UIControl.State = .normal,
                                   pipeline: ImagePipeline = .shared, options: ImageBinding.Options = .init(),
                                   callbacks: ImageLoadCallbacks = ImageLoadCallbacks()) {
        load(request, into: ButtonImageSlot(state: state.rawValue, isSecondary: true), pipeline: pipeline,
             options: options, callbacks: callbacks)
    }

    /// Loads the image at `url` as the button's background image for `state`.
    public func setBackgroundImage(with url: URL?, for state: UIControl.State = .normal, pipeline: ImagePipeline = .shared,
                                   options: ImageBinding.Options = .init(), callbacks: ImageLoadCallbacks = ImageLoadCallbacks()) {
        setBackgroundImage(with: url.map { ImageRequest(url: $0) }, for: state, pipeline: pipeline, options: options,
                           callbacks: callbacks)
    }
}
#else
extension ShashinButtonExtension {
    /// Loads `request` as the button's image, cancelling what it loaded before; `nil` clears
    /// it. `callbacks` run once, never once a later call replaced the request.
    public func setImage(with request: ImageRequest?, pipeline: ImagePipeline = .shared,
                         options: ImageBinding.Options = .init(), callbacks: ImageLoadCallbacks = ImageLoadCallbacks()) {
        load(request, into: ButtonImageSlot(state: 0, isSecondary: false), pipeline: pipeline, options: options, callbacks: callbacks)
    }

    /// Loads the image at `url` as the button's image.
    public func setImage(with url: URL?, pipeline: ImagePipeline = .shared, options: ImageBinding.Options = .init(),
                         callbacks: ImageLoadCallbacks = ImageLoadCallbacks()) {
        setImage(with: url.map { ImageRequest(url: $0) }, pipeline: pipeline, options: options, callbacks: callbacks)
    }

    /// Loads `request` as the button's alternate image (shown while pressed or on).
    public func setAlternateImage(with request: ImageRequest?, pipeline: ImagePipeline = .shared,
                                  options: ImageBinding.Options = .init(), callbacks: ImageLoadCallbacks = ImageLoadCallbacks()) {
        load(request, into: ButtonImageSlot(state: 0, isSecondary: true), pipeline: pipeline, options: options, callbacks: callbacks)
    }
}
#endif
#endif
