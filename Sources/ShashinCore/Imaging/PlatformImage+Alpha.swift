#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

extension PlatformImage {
    /// Whether any pixel may be transparent: decides whether a processed result can be stored as
    /// JPEG. On Apple platforms the image's alpha channel is taken at its word.
    var mayHaveTransparency: Bool {
        #if canImport(UIKit)
        guard let alpha = cgImage?.alphaInfo else { return false }
        return ![.none, .noneSkipFirst, .noneSkipLast].contains(alpha)
        #elseif canImport(AppKit)
        guard let alpha = cgImage(forProposedRect: nil, context: nil, hints: nil)?.alphaInfo else { return false }
        return ![.none, .noneSkipFirst, .noneSkipLast].contains(alpha)
        #elseif SHASHIN_APPLE_SHAPE
        return standInBitmap.hasTransparentPixel
        #else
        return hasTransparentPixel
        #endif
    }
}

extension Bitmap {
    /// Whether any pixel's alpha is below 255.
    var hasTransparentPixel: Bool {
        var index = 3
        while index < pixels.count {
            if pixels[index] != 255 { return true }
            index += 4
        }
        return false
    }
}
