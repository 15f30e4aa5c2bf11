#if canImport(UIKit) || canImport(AppKit)
import Foundation
import ObjectiveC
#if canImport(UIKit)
import UIKit
#else
import AppKit
#endif

/// The associated-object key; only its address is used, it is never written.
private nonisolated(unsafe) var animationKey: UInt8 = 0

/// Holds the struct as an object, which is what associated objects store.
private final class AnimationBox: Sendable {
    let animation: ImageAnimation
    init(_ animation: ImageAnimation) { self.animation = animation }
}

extension PlatformImage {
    /// For the first frame of an animated GIF or WebP: the original data and its frame count;
    /// `nil` for still images. Kept on the image object, so it survives the memory cache.
    public var animation: ImageAnimation? {
        get { (objc_getAssociatedObject(self, &animationKey) as? AnimationBox)?.animation }
        set { objc_setAssociatedObject(self, &animationKey, newValue.map(AnimationBox.init), .OBJC_ASSOCIATION_RETAIN) }
    }
}
#endif
