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

#if canImport(UIKit)
extension ImageAnimation {
    /// The decoded frames as an animated `UIImage`, which a `UIImageView` plays (forever: UIKit
    /// has no loop count); `nil` when fewer than two frames were decoded.
    ///
    /// UIKit shows an animated image's frames for equal times, so a frame lasting n steps of the
    /// frames' common step (in 10 ms units) appears n times, up to 1,000 images in all; beyond,
    /// each frame shows for the mean duration. A frame of under 20 ms shows for 100 ms, as
    /// browsers do.
    public var animatedImage: UIImage? { animatedImage(scale: 1) }

    /// ``animatedImage`` with every frame at `scale` pixels per point: the scale of the first
    /// frame the pipeline delivered (a thumbnail for a 3× screen), so the animation shows at the
    /// size of the still image it replaces.
    public func animatedImage(scale: Double) -> UIImage? {
        guard frames.count > 1 else { return nil }
        let images = frames.map { frame in
            Bitmap.makeCGImage(width: frame.bitmap.width, height: frame.bitmap.height, pixels: frame.bitmap.pixels)
                .map { UIImage(cgImage: $0, scale: scale, orientation: .up) } ?? UIImage()
        }
        let steps = frames.map { $0.duration < 0.02 ? 10 : Int(min(($0.duration * 100).rounded(), 360_000)) }
        let common = steps.reduce(0, Self.greatestCommonDivisor)
        let duration = Double(steps.reduce(0, +)) / 100
        let repeats = steps.map { $0 / max(1, common) }
        guard repeats.reduce(0, +) <= 1_000 else { return UIImage.animatedImage(with: images, duration: duration) }
        let repeated = zip(images, repeats).flatMap { image, count in Array(repeating: image, count: count) }
        return UIImage.animatedImage(with: repeated, duration: duration)
    }

    private static func greatestCommonDivisor(_ a: Int, _ b: Int) -> Int { b == 0 ? a : greatestCommonDivisor(b, a % b) }
}
#endif
