// Apple platforms only; compiles to nothing elsewhere. Type-checked by the Apple SDK checks.
#if (canImport(UIKit) && !os(watchOS)) || canImport(AppKit)
#if canImport(UIKit)
import UIKit
/// The button type `button.shashin` extends: `UIButton` on iOS, tvOS and visionOS.
///
/// ```swift
/// let follow: ShashinButton = UIButton(type: .custom)
/// follow.shashin.setImage(with: iconURL, for: .normal)
/// ```
public typealias ShashinButton = UIButton
#else
import AppKit
/// The button type `button.shashin` extends: `NSButton` on macOS.
///
/// ```swift
/// let follow: ShashinButton = NSButton()
/// follow.shashin.setImage(with: iconURL)
/// ```
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
final class ButtonImageTarget: ImageDisplaying {
    private weak var button: ShashinButton?
    private let slot: ButtonImageSlot
    private(set) var binding: ImageBinding?

    init(button: ShashinButton, slot: ButtonImageSlot) {
        self.button = button
        self.slot = slot
        self.binding = nil
        self.binding = ImageBinding(target: self)
    }

    /// A fade cross-dissolves the button; a custom transition (an image view's animation) shows
    /// the image at once.
    func display(_ image: PlatformImage, transition: ImageTransition, contentMode: ViewContentMode?) {
        guard let button else { return }
        guard transition.isFade else { return set(image) }
        #if canImport(UIKit)
        UIView.transition(with: button, duration: transition.duration, options: [.transitionCrossDissolve, .allowUserInteraction]) {
            self.set(image)
        }
        #else
        button.wantsLayer = true
        let fade = CATransition()
        fade.type = .fade
        fade.duration = transition.duration
        button.layer?.add(fade, forKey: "shashin.fade")
        set(image)
        #endif
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
/// view's is, with the same options and callbacks as `imageView.shashin.setImage`.
///
/// ```swift
/// button.shashin.setImage(with: avatarURL) { result in
///     if case .failure = result { button.isEnabled = false }
/// }
/// ```
@MainActor
public struct ShashinButtonExtension {
    let button: ShashinButton

    /// The target behind one of the button's images, made on first use.
    func target(_ slot: ButtonImageSlot) -> ButtonImageTarget {
        let all = objc_getAssociatedObject(button, &targetsKey) as? ButtonImageTargets ?? ButtonImageTargets()
        objc_setAssociatedObject(button, &targetsKey, all, .OBJC_ASSOCIATION_RETAIN_NONATOMIC)
        if let current = all.targets[slot] { return current }
        let target = ButtonImageTarget(button: button, slot: slot)
        all.targets[slot] = target
        return target
    }

    func load(_ request: ImageRequest?, into slot: ButtonImageSlot, options: ImageLoadingOptions,
              completion: ((Result<ImageResponse, any Error>) -> Void)?, progress: ((ImageTask.Progress) -> Void)?) {
        guard let binding = target(slot).binding else { return }
        binding.options = options
        binding.setRequest(request, callbacks: ImageLoadCallbacks(onProgress: progress, onCompletion: completion))
    }

    /// Stops every load of the button; what it shows stays.
    ///
    /// ```swift
    /// override func prepareForReuse() { super.prepareForReuse(); likeButton.shashin.cancel() }
    /// ```
    public func cancel() {
        guard let all = objc_getAssociatedObject(button, &targetsKey) as? ButtonImageTargets else { return }
        for target in all.targets.values { target.binding?.cancel() }
    }
}

extension ShashinButton {
    /// Shashin's entry point for buttons.
    ///
    /// ```swift
    /// button.shashin.setImage(with: url)
    /// ```
    @MainActor public var shashin: ShashinButtonExtension { ShashinButtonExtension(button: self) }
}

#if canImport(UIKit)
extension ShashinButtonExtension {
    /// Loads `request` as the button's image for `state` (default `.normal`), cancelling what
    /// that image loaded before; `nil` clears it. Each state loads on its own. `options`,
    /// `completion` and `progress` are as for `imageView.shashin.setImage(with:options:completion:progress:)`.
    ///
    /// ```swift
    /// likeButton.shashin.setImage(with: ImageRequest(url: heartURL), for: .selected)
    /// ```
    public func setImage(with request: ImageRequest?, for state: UIControl.State = .normal,
                         options: ImageLoadingOptions = ImageLoadingOptions(),
                         completion: ((Result<ImageResponse, any Error>) -> Void)? = nil,
                         progress: ((ImageTask.Progress) -> Void)? = nil) {
        load(request, into: ButtonImageSlot(state: state.rawValue, isSecondary: false), options: options,
             completion: completion, progress: progress)
    }

    /// Loads the image at `url` as the button's image for `state`; see the `ImageRequest` form.
    ///
    /// ```swift
    /// likeButton.shashin.setImage(with: heartURL, for: .normal) { result in print(result) }
    /// ```
    public func setImage(with url: URL?, for state: UIControl.State = .normal,
                         options: ImageLoadingOptions = ImageLoadingOptions(),
                         completion: ((Result<ImageResponse, any Error>) -> Void)? = nil,
                         progress: ((ImageTask.Progress) -> Void)? = nil) {
        setImage(with: url.map { ImageRequest(url: $0) }, for: state, options: options, completion: completion, progress: progress)
    }

    /// Loads `request` as the button's background image for `state` (default `.normal`); as
    /// `setImage(with:for:options:completion:progress:)` otherwise.
    ///
    /// ```swift
    /// banner.shashin.setBackgroundImage(with: ImageRequest(url: artURL).sized(toView: banner), for: .normal)
    /// ```
    public func setBackgroundImage(with request: ImageRequest?, for state: UIControl.State = .normal,
                                   options: ImageLoadingOptions = ImageLoadingOptions(),
                                   completion: ((Result<ImageResponse, any Error>) -> Void)? = nil,
                                   progress: ((ImageTask.Progress) -> Void)? = nil) {
        load(request, into: ButtonImageSlot(state: state.rawValue, isSecondary: true), options: options,
             completion: completion, progress: progress)
    }

    /// Loads the image at `url` as the button's background image for `state`.
    ///
    /// ```swift
    /// banner.shashin.setBackgroundImage(with: artURL, for: .highlighted)
    /// ```
    public func setBackgroundImage(with url: URL?, for state: UIControl.State = .normal,
                                   options: ImageLoadingOptions = ImageLoadingOptions(),
                                   completion: ((Result<ImageResponse, any Error>) -> Void)? = nil,
                                   progress: ((ImageTask.Progress) -> Void)? = nil) {
        setBackgroundImage(with: url.map { ImageRequest(url: $0) }, for: state, options: options, completion: completion,
                           progress: progress)
    }
}
#else
extension ShashinButtonExtension {
    /// Loads `request` as the button's image, cancelling what it loaded before; `nil` clears
    /// it. `options`, `completion` and `progress` are as for an image view's `setImage`.
    ///
    /// ```swift
    /// toggle.shashin.setImage(with: ImageRequest(url: iconURL).sized(toView: toggle))
    /// ```
    public func setImage(with request: ImageRequest?, options: ImageLoadingOptions = ImageLoadingOptions(),
                         completion: ((Result<ImageResponse, any Error>) -> Void)? = nil,
                         progress: ((ImageTask.Progress) -> Void)? = nil) {
        load(request, into: ButtonImageSlot(state: 0, isSecondary: false), options: options, completion: completion,
             progress: progress)
    }

    /// Loads the image at `url` as the button's image.
    ///
    /// ```swift
    /// toggle.shashin.setImage(with: iconURL)
    /// ```
    public func setImage(with url: URL?, options: ImageLoadingOptions = ImageLoadingOptions(),
                         completion: ((Result<ImageResponse, any Error>) -> Void)? = nil,
                         progress: ((ImageTask.Progress) -> Void)? = nil) {
        setImage(with: url.map { ImageRequest(url: $0) }, options: options, completion: completion, progress: progress)
    }

    /// Loads `request` as the button's alternate image (shown while pressed or on).
    ///
    /// ```swift
    /// toggle.shashin.setAlternateImage(with: ImageRequest(url: pressedURL))
    /// ```
    public func setAlternateImage(with request: ImageRequest?, options: ImageLoadingOptions = ImageLoadingOptions(),
                                  completion: ((Result<ImageResponse, any Error>) -> Void)? = nil,
                                  progress: ((ImageTask.Progress) -> Void)? = nil) {
        load(request, into: ButtonImageSlot(state: 0, isSecondary: true), options: options, completion: completion,
             progress: progress)
    }

    /// Loads the image at `url` as the button's alternate image.
    ///
    /// ```swift
    /// toggle.shashin.setAlternateImage(with: pressedURL)
    /// ```
    public func setAlternateImage(with url: URL?, options: ImageLoadingOptions = ImageLoadingOptions(),
                                  completion: ((Result<ImageResponse, any Error>) -> Void)? = nil,
                                  progress: ((ImageTask.Progress) -> Void)? = nil) {
        setAlternateImage(with: url.map { ImageRequest(url: $0) }, options: options, completion: completion, progress: progress)
    }
}
#endif
#endif
