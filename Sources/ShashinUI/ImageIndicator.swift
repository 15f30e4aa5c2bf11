// UIKit only; compiles to nothing elsewhere. Type-checked by the Apple SDK checks.
#if canImport(UIKit) && !os(watchOS)
import ObjectiveC
import Shashin
import UIKit

/// A view shown over an image view while its image loads (`ImageBinding.State.loading`),
/// centred in it. ``ImageIndicatorType/activity`` is a `UIActivityIndicatorView`; conform your
/// own (a shimmer, a ring with progress) for ``ImageIndicatorType/custom(_:)``.
///
/// ```swift
/// final class PulseIndicator: ImageLoadingIndicator {
///     let view: UIView = UIView(frame: CGRect(x: 0, y: 0, width: 12, height: 12))
///     func startAnimating() { view.isHidden = false }
///     func stopAnimating() { view.isHidden = true }
/// }
/// imageView.shashin.indicatorType = .custom(PulseIndicator())
/// ```
@MainActor
public protocol ImageLoadingIndicator: AnyObject {
    /// The view added over the image view, centred.
    var view: UIView { get }
    /// The load started: show and animate.
    ///
    /// ```swift
    /// func startAnimating() { spinner.startAnimating() }
    /// ```
    func startAnimating()
    /// The load ended (image, failure, cancel or a cleared view): stop and hide.
    ///
    /// ```swift
    /// func stopAnimating() { spinner.stopAnimating() }
    /// ```
    func stopAnimating()
}

/// Which indicator an image view shows while loading: `imageView.shashin.indicatorType`.
///
/// ```swift
/// imageView.shashin.indicatorType = .activity
/// imageView.shashin.setImage(with: url)
/// ```
@MainActor
public enum ImageIndicatorType {
    /// None (default).
    case none
    /// The system's spinner, `UIActivityIndicatorView` in its medium style.
    case activity
    /// Your own indicator.
    case custom(any ImageLoadingIndicator)

    /// The indicator this type makes; `nil` for `.none`.
    func makeIndicator() -> (any ImageLoadingIndicator)? {
        switch self {
        case .none: nil
        case .activity: ActivityIndicator()
        case .custom(let indicator): indicator
        }
    }
}

/// `UIActivityIndicatorView` as an ``ImageLoadingIndicator``.
@MainActor
final class ActivityIndicator: ImageLoadingIndicator {
    private let spinner: UIActivityIndicatorView = {
        let spinner = UIActivityIndicatorView(style: .medium)
        spinner.hidesWhenStopped = true
        return spinner
    }()
    var view: UIView { spinner }
    func startAnimating() { spinner.startAnimating() }
    func stopAnimating() { spinner.stopAnimating() }
}

/// Holds a view's indicator and its type, which is what associated objects store.
@MainActor
final class IndicatorBox {
    let type: ImageIndicatorType
    let indicator: any ImageLoadingIndicator
    init(type: ImageIndicatorType, indicator: any ImageLoadingIndicator) {
        self.type = type
        self.indicator = indicator
    }
}

/// The associated-object key of a view's indicator; only its address is used.
@MainActor private var indicatorKey: UInt8 = 0

extension UIImageView {
    /// The view's indicator, installed centred over it; setting `nil` removes it.
    @MainActor var shashinIndicator: IndicatorBox? {
        get { objc_getAssociatedObject(self, &indicatorKey) as? IndicatorBox }
        set {
            if let old = shashinIndicator {
                old.indicator.stopAnimating()
                old.indicator.view.removeFromSuperview()
            }
            objc_setAssociatedObject(self, &indicatorKey, newValue, .OBJC_ASSOCIATION_RETAIN_NONATOMIC)
            guard let indicator = newValue?.indicator else { return }
            let view = indicator.view
            view.translatesAutoresizingMaskIntoConstraints = false
            addSubview(view)
            NSLayoutConstraint.activate([view.centerXAnchor.constraint(equalTo: centerXAnchor),
                                         view.centerYAnchor.constraint(equalTo: centerYAnchor)])
        }
    }

    /// Shows the indicator while `state` is `.loading`, hides it otherwise.
    @MainActor func shashinUpdateIndicator(_ state: ImageBinding.State) {
        guard let indicator = shashinIndicator?.indicator else { return }
        if state == .loading { indicator.startAnimating() } else { indicator.stopAnimating() }
    }
}
#endif
