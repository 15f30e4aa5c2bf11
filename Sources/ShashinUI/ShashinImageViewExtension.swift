// Apple platforms only; compiles to nothing elsewhere. Not compiled on this project's Linux CI.
#if canImport(UIKit) || canImport(AppKit)
#if canImport(UIKit)
import UIKit
/// The image view type the `shashin` entry point extends.
public typealias ShashinImageView = UIImageView
#else
import AppKit
/// The image view type the `shashin` entry point extends.
public typealias ShashinImageView = NSImageView
#endif
import ObjectiveC
import Shashin

/// `imageView.shashin`: loads images into an image view through a binding the view keeps, so a
/// reused cell never shows a late image of its previous row.
///
/// ```swift
/// cell.imageView.shashin.setImage(with: ImageRequest(url: url, thumbnail: .init(maxPixelSize: 300)),
///                                 options: .init(placeholder: UIImage(named: "placeholder")))
/// imageView.shashin.setImage(with: url) { result in
///     if case .failure = result { retryButton.isHidden = false }
/// }
/// ```
@MainActor
public struct ShashinImageViewExtension {
    /// The view.
    public let view: ShashinImageView

    /// The view's binding on `pipeline`, made on first use. Asked for with another pipeline, the
    /// view gets a new binding on that one (keeping the options and completion handler) and the
    /// old binding's load is cancelled.
    public func binding(pipeline: ImagePipeline = .shared) -> ImageBinding {
        let current = objc_getAssociatedObject(view, &bindingKey) as? ImageBinding
        if let current, current.pipeline === pipeline { return current }
        let binding = ImageBinding(target: view, pipeline: pipeline, options: current?.options ?? .init())
        binding.onCompletion = current?.onCompletion
        binding.onStateChange = current?.onStateChange
        binding.onProgress = current?.onProgress
        #if canImport(UIKit) && !os(watchOS)
        binding.adapterStateObserver = { [weak view] state in view?.shashinUpdateIndicator(state) }
        #endif
        current?.cancel()
        objc_setAssociatedObject(view, &bindingKey, binding, .OBJC_ASSOCIATION_RETAIN_NONATOMIC)
        return binding
    }

    /// Loads `request` into the view (cancelling what it loaded before); `nil` clears it.
    ///
    /// `completion`, when given, is called once on the main actor with the image or the error
    /// this request ends with (at once for a memory hit); never once a later `setImage` on the
    /// same view has replaced the request — a reused cell hears only of its current row.
    public func setImage(with request: ImageRequest?, pipeline: ImagePipeline = .shared,
                         options: ImageBinding.Options = .init(),
                         completion: ((Result<ImageResponse, any Error>) -> Void)? = nil) {
        setImage(with: request, pipeline: pipeline, options: options, callbacks: ImageLoadCallbacks(onCompletion: completion))
    }

    /// Loads `request` as `setImage(with:pipeline:options:completion:)` does, and tells
    /// `progress` of the download's bytes (not for a replaced request). A separate form, so a
    /// trailing closure after the other form is still its `completion`.
    public func setImage(with request: ImageRequest?, pipeline: ImagePipeline = .shared,
                         options: ImageBinding.Options = .init(),
                         progress: @escaping (ImageTask.Progress) -> Void,
                         completion: ((Result<ImageResponse, any Error>) -> Void)? = nil) {
        setImage(with: request, pipeline: pipeline, options: options,
                 callbacks: ImageLoadCallbacks(onProgress: progress, onCompletion: completion))
    }

    /// Loads `request` into the view with the request's ``ImageLoadCallbacks`` (start,
    /// progress, success, failure, completion: each once, never for a replaced request).
    public func setImage(with request: ImageRequest?, pipeline: ImagePipeline = .shared,
                         options: ImageBinding.Options = .init(), callbacks: ImageLoadCallbacks) {
        let binding = binding(pipeline: pipeline)
        binding.options = options
        binding.setRequest(request, callbacks: callbacks)
    }

    /// Loads the image at `url`; `completion` as for the `ImageRequest` form.
    public func setImage(with url: URL?, pipeline: ImagePipeline = .shared, options: ImageBinding.Options = .init(),
                         completion: ((Result<ImageResponse, any Error>) -> Void)? = nil) {
        setImage(with: url.map { ImageRequest(url: $0) }, pipeline: pipeline, options: options, completion: completion)
    }

    /// Loads the image at `url`; `progress` and `completion` as for the `ImageRequest` form.
    public func setImage(with url: URL?, pipeline: ImagePipeline = .shared, options: ImageBinding.Options = .init(),
                         progress: @escaping (ImageTask.Progress) -> Void,
                         completion: ((Result<ImageResponse, any Error>) -> Void)? = nil) {
        setImage(with: url.map { ImageRequest(url: $0) }, pipeline: pipeline, options: options,
                 progress: progress, completion: completion)
    }

    /// Stops loading; what the view shows stays.
    public func cancel() {
        (objc_getAssociatedObject(view, &bindingKey) as? ImageBinding)?.cancel()
    }
}

#if canImport(UIKit) && !os(watchOS)
extension ShashinImageViewExtension {
    /// The indicator shown over the view while its image loads; default `.none`. Set it before
    /// `setImage`; it shows from the next change of the load's state.
    public var indicatorType: ImageIndicatorType {
        get { view.shashinIndicator?.type ?? .none }
        nonmutating set { view.shashinIndicator = newValue.makeIndicator().map { IndicatorBox(type: newValue, indicator: $0) } }
    }

    /// Loads `request` and shows it through `transition`, your own animation
    /// (``ImageViewTransition``): for loaded images, and for memory-cache hits too when
    /// `forcesTransition` (the options' `transition` becomes `.custom`).
    ///
    /// ```swift
    /// imageView.shashin.setImage(with: request, transition: ImageViewTransition(duration: 0.3) { view, image in
    ///     view.image = image
    /// })
    /// ```
    public func setImage(with request: ImageRequest?, pipeline: ImagePipeline = .shared,
                         options: ImageBinding.Options = .init(), transition: ImageViewTransition,
                         forcesTransition: Bool = false, callbacks: ImageLoadCallbacks = ImageLoadCallbacks()) {
        var options = options
        options.transition = .custom
        options.forcesTransition = forcesTransition
        view.shashinCustomTransition = transition
        setImage(with: request, pipeline: pipeline, options: options, callbacks: callbacks)
    }

    /// Loads the image at `url` through `transition`; see the `ImageRequest` form.
    public func setImage(with url: URL?, pipeline: ImagePipeline = .shared, options: ImageBinding.Options = .init(),
                         transition: ImageViewTransition, forcesTransition: Bool = false,
                         callbacks: ImageLoadCallbacks = ImageLoadCallbacks()) {
        setImage(with: url.map { ImageRequest(url: $0) }, pipeline: pipeline, options: options, transition: transition,
                 forcesTransition: forcesTransition, callbacks: callbacks)
    }
}
#endif

extension ShashinImageView {
    /// Shashin's entry point: `imageView.shashin.setImage(with: url)`.
    @MainActor public var shashin: ShashinImageViewExtension { ShashinImageViewExtension(view: self) }
}

/// The associated-object key of a view's binding; only its address is used.
@MainActor private var bindingKey: UInt8 = 0
#endif
