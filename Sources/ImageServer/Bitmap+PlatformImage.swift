import Foundation
import Shashin
#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

extension Bitmap {
    /// The bitmap as the image type encoders take: itself where `PlatformImage` is `Bitmap`
    /// (Linux), an sRGB `CGImage` wrapped in `UIImage` / `NSImage` on Apple platforms.
    var platformImage: PlatformImage {
        #if canImport(UIKit) || canImport(AppKit)
        let provider = CGDataProvider(data: Data(pixels) as CFData)!
        let cgImage = CGImage(
            width: width, height: height, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: width * 4,
            space: CGColorSpace(name: CGColorSpace.sRGB)!,
            bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.last.rawValue),
            provider: provider, decode: nil, shouldInterpolate: false, intent: .defaultIntent
        )!
        #if canImport(UIKit)
        return UIImage(cgImage: cgImage)
        #else
        return NSImage(cgImage: cgImage, size: NSSize(width: width, height: height))
        #endif
        #else
        return self
        #endif
    }
}
