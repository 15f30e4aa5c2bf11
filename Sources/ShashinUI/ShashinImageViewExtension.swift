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
        current?.cancel()
        objc_setAssociatedObject(view, &bindingKey, binding, .OBJC_ASSOCIATION_RETAIN_NONATOMIC)
        return binding
    }

    /// Loads `request` into the view (cancelling what it loaded before); `nil` clears it.
    ///
    /// `completion`, when given, is called once on the main actor with the image or the error
    /// this request ends with (at once for a memory hit), and never when a later `setImage` on
    /// the same view has replaced the request — a reused cell hears only of its current row.
    public func setImage(with request: ImageRequest?, pipeline: ImagePipeline = .shared,
                         options: ImageBinding.Options = .init(),
                         completion: ((Result<ImageResponse, any Error>) -> Void)? = nil) {
        let binding = binding(pipeline: pipeline)
        binding.options = options
        binding.setRequest(request, completion: completion)
    }

    /// Loads the image at `url`; `completion` as for the `ImageRequest` form.
    public func setImage(with url: URL?, pipeline: ImagePipeline = .shared, options: ImageBinding.Options = .init(),
                         completion: ((Result<ImageResponse, any Error>) -> Void)? = nil) {
        setImage(with: url.map { ImageRequest(url: $0) }, pipeline: pipeline, options: options, completion: completion)
    }

    /// Stops loading; what the view shows stays.
    public func cancel() {
        (objc_getAssociatedObject(view, &bindingKey) as? ImageBinding)?.cancel()
    }
}

extension ShashinImageView {
    /// Shashin's entry point: `imageView.shashin.setImage(with: url)`.
    @MainActor public var shashin: ShashinImageViewExtension { ShashinImageViewExtension(view: self) }
}

/// The associated-object key of a view's binding; only its address is used.
@MainActor private var bindingKey: UInt8 = 0
#endif
