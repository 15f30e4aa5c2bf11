// Apple platforms only; compiles to nothing elsewhere. Type-checked by the Apple SDK check.
#if canImport(UIKit) || canImport(AppKit)
#if canImport(UIKit)
import UIKit
/// The image view type the `shashin` entry point extends: `UIImageView`.
///
/// ```swift
/// let avatarView: ShashinImageView = UIImageView()
/// avatarView.shashin.setImage(with: avatarURL)
/// ```
public typealias ShashinImageView = UIImageView
#else
import AppKit
/// The image view type the `shashin` entry point extends: `NSImageView`.
///
/// ```swift
/// let avatarView: ShashinImageView = NSImageView()
/// avatarView.shashin.setImage(with: avatarURL)
/// ```
public typealias ShashinImageView = NSImageView
#endif
import Shashin

/// `imageView.shashin`: loads images into an image view through a binding the view keeps, so a
/// reused cell never shows a late image of its previous row.
///
/// ```swift
/// cell.photoView.shashin.setImage(with: url, options: ImageLoadingOptions(placeholder: placeholder))
/// imageView.shashin.setImage(with: request) { result in
///     if case .failure = result { retryButton.isHidden = false }
/// }
/// ```
@MainActor
public struct ShashinImageViewExtension {
    let view: ShashinImageView

    /// Loads `request` into the view, cancelling what it loaded before; `nil` clears it.
    ///
    /// `options` are merged over `ImageLoadingOptions.shared`: what they leave `nil` (the
    /// pipeline, the placeholder, the transition, …) comes from the app's defaults. A memory-cache
    /// hit shows before this returns, with no transition; anything else fades in (0.25 s) unless
    /// the options say otherwise.
    ///
    /// `completion` is called once, on the main actor, with the image or the error this request
    /// ends with (before this returns for a memory hit); `progress` with each report of the
    /// download's bytes. Neither is called once a later `setImage` on the same view has replaced
    /// the request: a reused cell hears only of its current row. Give both as trailing closures:
    ///
    /// ```swift
    /// imageView.shashin.setImage(with: request) { result in
    ///     spinner.isHidden = true
    /// } progress: { progress in
    ///     model.fraction = progress.fraction
    /// }
    /// ```
    public func setImage(with request: ImageRequest?, options: ImageLoadingOptions = ImageLoadingOptions(),
                         completion: ((Result<ImageResponse, any Error>) -> Void)? = nil,
                         progress: ((ImageTask.Progress) -> Void)? = nil) {
        let binding = binding
        binding.options = options
        binding.setRequest(request, callbacks: ImageLoadCallbacks(onProgress: progress, onCompletion: completion))
    }

    /// Loads the image at `url` into the view; see the `ImageRequest` form.
    ///
    /// ```swift
    /// imageView.shashin.setImage(with: url)
    /// ```
    public func setImage(with url: URL?, options: ImageLoadingOptions = ImageLoadingOptions(),
                         completion: ((Result<ImageResponse, any Error>) -> Void)? = nil,
                         progress: ((ImageTask.Progress) -> Void)? = nil) {
        setImage(with: url.map { ImageRequest(url: $0) }, options: options, completion: completion, progress: progress)
    }

    /// Stops loading; what the view shows stays.
    ///
    /// ```swift
    /// override func prepareForReuse() { super.prepareForReuse(); photoView.shashin.cancel() }
    /// ```
    public func cancel() {
        view.shashinExistingLoading?.binding.cancel()
    }

    /// The view's binding, made on first use.
    var binding: ImageBinding { view.shashinLoading.binding }
}

#if canImport(UIKit) && !os(watchOS)
extension ShashinImageViewExtension {
    /// The indicator shown over the view while its image loads; default `.none`. Set it before
    /// `setImage`; it shows from the next change of the load's state.
    ///
    /// ```swift
    /// imageView.shashin.indicatorType = .activity
    /// ```
    public var indicatorType: ImageIndicatorType {
        get { view.shashinIndicator?.type ?? .none }
        nonmutating set { view.shashinIndicator = newValue.makeIndicator().map { IndicatorBox(type: newValue, indicator: $0) } }
    }
}
#endif

extension ShashinImageView {
    /// Shashin's entry point for image views.
    ///
    /// ```swift
    /// imageView.shashin.setImage(with: url)
    /// ```
    @MainActor public var shashin: ShashinImageViewExtension { ShashinImageViewExtension(view: self) }
}
#endif
