#if canImport(UIKit)
import UIKit
/// The image type the pipeline delivers: `UIImage` on iOS, tvOS and visionOS.
public typealias PlatformImage = UIImage
#elseif canImport(AppKit)
import AppKit
/// The image type the pipeline delivers: `NSImage` on macOS.
public typealias PlatformImage = NSImage
#else
/// The image type the pipeline delivers: a `Bitmap` (RGBA8) where no UI framework exists.
public typealias PlatformImage = Bitmap
#endif

extension PlatformImage {
    /// The bytes the decoded image occupies (with an animation's original data): the memory
    /// cache's cost for it.
    var decodedByteCount: Int {
        #if canImport(UIKit)
        guard let cgImage else { return 1 }
        return cgImage.bytesPerRow * cgImage.height + (animation?.data.count ?? 0)
        #elseif canImport(AppKit)
        guard let cgImage = cgImage(forProposedRect: nil, context: nil, hints: nil) else { return 1 }
        return cgImage.bytesPerRow * cgImage.height + (animation?.data.count ?? 0)
        #else
        return byteCount
        #endif
    }
}
