// Apple platforms only; compiles to nothing elsewhere. Type-checked by the Apple SDK check.
#if canImport(UIKit) || canImport(AppKit)
#if canImport(UIKit)
import UIKit
#else
import AppKit
#endif
import Shashin

extension ImageRequest {
    #if canImport(UIKit)
    /// This request with a thumbnail the size of `view`, in points at the view's display scale
    /// (its trait collection's; the main screen's before the view is in a window), which the
    /// image covers (`.aspectFill`, default) or fits inside. Before layout gives the view a size,
    /// the request is returned as it is: call it once the view is laid out.
    ///
    /// ```swift
    /// imageView.shashin.setImage(with: ImageRequest(url: url).sized(toView: imageView))
    /// ```
    @MainActor
    public func sized(toView view: UIView, contentMode: ImageContentMode = .aspectFill) -> ImageRequest {
        let scale = view.traitCollection.displayScale
        return sized(to: view.bounds.size, scale: scale > 0 ? Double(scale) : nil, contentMode: contentMode)
    }
    #else
    /// This request with a thumbnail the size of `view`, in points at its window's backing scale
    /// (the main display's before the view is in a window), which the image covers (`.aspectFill`,
    /// default) or fits inside. Before layout gives the view a size, the request is returned as it
    /// is: call it once the view is laid out.
    ///
    /// ```swift
    /// imageView.shashin.setImage(with: ImageRequest(url: url).sized(toView: imageView))
    /// ```
    @MainActor
    public func sized(toView view: NSView, contentMode: ImageContentMode = .aspectFill) -> ImageRequest {
        sized(to: view.bounds.size, scale: view.window.map { Double($0.backingScaleFactor) }, contentMode: contentMode)
    }
    #endif
}
#endif
