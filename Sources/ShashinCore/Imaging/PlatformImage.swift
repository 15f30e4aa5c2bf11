#if canImport(UIKit)
import UIKit
/// The image type the pipeline delivers: `UIImage` on iOS, tvOS and visionOS.
public typealias PlatformImage = UIImage
#elseif canImport(AppKit)
import AppKit
/// The image type the pipeline delivers: `NSImage` on macOS.
public typealias PlatformImage = NSImage
#elseif SHASHIN_APPLE_SHAPE
/// The image type in the compile check `make check-apple-shape`: an opaque class shaped as
/// `UIImage` is to this package (see `AppleShapeImage`).
public typealias PlatformImage = AppleShapeImage
#else
/// The image type the pipeline delivers: a `Bitmap` (RGBA8) where no UI framework exists.
public typealias PlatformImage = Bitmap
#endif

// `UIImage` and `NSImage` are not `Sendable` on every system the package supports (`NSImage` only
// from macOS 14), and neither is the Apple-shape stand-in: the types that carry a `PlatformImage`
// across threads (`ImageResponse`, `ImageResult`, `UncheckedImage`) assert `Sendable` there, as
// images are never mutated after decoding. Where `PlatformImage` is `Bitmap`, the compiler checks them.

extension PlatformImage {
    /// The bytes the decoded image occupies (with an animation's other frames and encoded data): the memory
    /// cache's cost for it. On Apple platforms this counts the image's own rows: the built-in
    /// processors copy what they crop, so no result keeps a larger parent's pixels alive
    /// (`CGImage.cropping(to:)` alone would share them); a custom processor that returns a
    /// `cropping(to:)` result should copy it too, or the cache undercounts it.
    var decodedByteCount: Int {
        #if canImport(UIKit)
        guard let cgImage else { return 1 }
        return cgImage.bytesPerRow * cgImage.height + animationByteCount
        #elseif canImport(AppKit)
        guard let cgImage = cgImage(forProposedRect: nil, context: nil, hints: nil) else { return 1 }
        return cgImage.bytesPerRow * cgImage.height + animationByteCount
        #elseif SHASHIN_APPLE_SHAPE
        return standInBitmap.pixels.count + animationByteCount
        #else
        return byteCount
        #endif
    }

    #if canImport(UIKit) || canImport(AppKit) || SHASHIN_APPLE_SHAPE
    /// An animation's frames after the first and its encoded data.
    private var animationByteCount: Int { animation.map { $0.extraFrameByteCount + $0.data.count } ?? 0 }
    #endif
}
