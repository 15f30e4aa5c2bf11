#if SHASHIN_APPLE_SHAPE && !canImport(UIKit) && !canImport(AppKit)
import Foundation

/// `PlatformImage` in the compile check `make check-apple-shape` (Linux with the condition
/// `SHASHIN_APPLE_SHAPE`), never shipped and never run. It has only what `UIImage` and `NSImage`
/// both have for this package: a class, not `Sendable` (`NSImage` is Sendable only from macOS 14,
/// and the package supports macOS 12), a size in points, an `animation` set on the shared
/// instance, and no `pixels`, `width`, `height` or `scale` (which `NSImage` lacks). Code that
/// assumes `PlatformImage` is `Bitmap` fails to compile in that configuration as it does on Apple
/// platforms; the platform files read `standInBitmap` where their Apple branches read `cgImage`.
public final class AppleShapeImage {
    /// The size in points, as `UIImage.size` and `NSImage.size`.
    public let size: CGSize
    /// For the first frame of an animated GIF or WebP: as `PlatformImage.animation` on Apple
    /// platforms, settable on a shared instance.
    public var animation: ImageAnimation?
    /// The pixels, for the platform files only (what `cgImage` is to their Apple branches).
    let standInBitmap: Bitmap

    init(standInBitmap: Bitmap) {
        self.standInBitmap = standInBitmap
        self.size = CGSize(width: standInBitmap.width, height: standInBitmap.height)
        self.animation = standInBitmap.animation
    }
}
#endif
