import Foundation
#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

// The one way, on every platform, for the package's tools and tests to make a `PlatformImage`
// from pixels and to read an image's size and pixels back. Code outside the platform files that
// touched `Bitmap`'s `width` or `pixels` on a `PlatformImage` would compile on Linux only.

extension PlatformImage {
    /// The width of the image's bitmap in pixels (not points): `0` when it has none.
    package var pixelWidth: Int {
        #if canImport(UIKit)
        cgImage?.width ?? 0
        #elseif canImport(AppKit)
        cgImage(forProposedRect: nil, context: nil, hints: nil)?.width ?? 0
        #elseif SHASHIN_APPLE_SHAPE
        standInBitmap.width
        #else
        width
        #endif
    }

    /// The height of the image's bitmap in pixels (not points): `0` when it has none.
    package var pixelHeight: Int {
        #if canImport(UIKit)
        cgImage?.height ?? 0
        #elseif canImport(AppKit)
        cgImage(forProposedRect: nil, context: nil, hints: nil)?.height ?? 0
        #elseif SHASHIN_APPLE_SHAPE
        standInBitmap.height
        #else
        height
        #endif
    }
}

extension Bitmap {
    /// This bitmap as the platform's image: itself on Linux; on Apple platforms an sRGB `CGImage`
    /// (straight alpha, scale 1) in a `UIImage`/`NSImage`, with `animation` carried over (a
    /// bitmap without pixels gives an image without a `CGImage`).
    package var platformImage: PlatformImage {
        #if canImport(UIKit) || canImport(AppKit)
        let cgImage = Self.makeCGImage(width: width, height: height, pixels: pixels)
        #if canImport(UIKit)
        let image = cgImage.map { UIImage(cgImage: $0, scale: 1, orientation: .up) } ?? UIImage()
        #else
        let image = cgImage.map { NSImage(cgImage: $0, size: NSSize(width: $0.width, height: $0.height)) } ?? NSImage(size: .zero)
        #endif
        image.animation = animation
        return image
        #elseif SHASHIN_APPLE_SHAPE
        return AppleShapeImage(standInBitmap: self)
        #else
        return self
        #endif
    }

    /// The pixels of `image` as 8-bit sRGB RGBA with straight alpha: the image itself on Linux;
    /// on Apple platforms its `CGImage`'s bytes, drawn into that layout first when they are in
    /// another. `nil` when the image has no bitmap (a `UIImage` made from a `CIImage`) or Core
    /// Graphics cannot draw it.
    package init?(platformImage image: PlatformImage) {
        #if canImport(UIKit) || canImport(AppKit)
        #if canImport(UIKit)
        guard let cgImage = image.cgImage else { return nil }
        #else
        guard let cgImage = image.cgImage(forProposedRect: nil, context: nil, hints: nil) else { return nil }
        #endif
        guard let pixels = Self.pixels(of: cgImage) else { return nil }
        self.init(width: cgImage.width, height: cgImage.height, pixels: pixels, animation: image.animation)
        #elseif SHASHIN_APPLE_SHAPE
        self = image.standInBitmap
        #else
        self = image
        #endif
    }
}

#if canImport(UIKit) || canImport(AppKit)
extension Bitmap {
    /// `pixels` as an sRGB `CGImage` with straight alpha; `nil` when there are none.
    static func makeCGImage(width: Int, height: Int, pixels: [UInt8]) -> CGImage? {
        guard width > 0, height > 0, let space = CGColorSpace(name: CGColorSpace.sRGB),
              let provider = CGDataProvider(data: Data(pixels) as CFData) else { return nil }
        return CGImage(
            width: width, height: height, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: width * 4,
            space: space, bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.last.rawValue),
            provider: provider, decode: nil, shouldInterpolate: false, intent: .defaultIntent
        )
    }

    /// `cgImage` as sRGB RGBA8 with straight alpha: its own bytes when it already has that
    /// layout (so `platformImage` and back is exact), otherwise drawn into such a buffer (Core
    /// Graphics draws premultiplied alpha) and un-premultiplied, rounding to nearest.
    static func pixels(of cgImage: CGImage) -> [UInt8]? {
        if let pixels = straightRGBA(of: cgImage) { return pixels }
        let width = cgImage.width, height = cgImage.height
        guard let space = CGColorSpace(name: CGColorSpace.sRGB) else { return nil }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let drawn = pixels.withUnsafeMutableBytes { buffer -> Bool in
            guard let context = CGContext(data: buffer.baseAddress, width: width, height: height, bitsPerComponent: 8,
                                          bytesPerRow: width * 4, space: space,
                                          bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue) else { return false }
            context.draw(cgImage, in: CGRect(x: 0, y: 0, width: width, height: height))
            return true
        }
        guard drawn else { return nil }
        var index = 0
        while index < pixels.count {
            let alpha = Int(pixels[index + 3])
            if alpha != 0 && alpha != 255 {
                for channel in index..<index + 3 {
                    pixels[channel] = UInt8(min(255, (Int(pixels[channel]) * 255 + alpha / 2) / alpha))
                }
            }
            index += 4
        }
        return pixels
    }

    /// The rows of an image already in 8-bit sRGB RGBA with straight alpha, copied as they are;
    /// `nil` for any other layout.
    private static func straightRGBA(of cgImage: CGImage) -> [UInt8]? {
        let width = cgImage.width, height = cgImage.height, bytesPerRow = cgImage.bytesPerRow
        let byteOrder = cgImage.bitmapInfo.rawValue & CGBitmapInfo.byteOrderMask.rawValue
        guard cgImage.bitsPerComponent == 8, cgImage.bitsPerPixel == 32, cgImage.alphaInfo == .last,
              !cgImage.bitmapInfo.contains(.floatComponents),
              byteOrder == 0 || byteOrder == CGBitmapInfo.byteOrder32Big.rawValue,
              (cgImage.colorSpace?.name as String?) == (CGColorSpace.sRGB as String),
              width > 0, height > 0, bytesPerRow >= width * 4,
              let data = cgImage.dataProvider?.data as Data?,
              data.count >= bytesPerRow * (height - 1) + width * 4 else { return nil }
        var pixels = [UInt8]()
        pixels.reserveCapacity(width * height * 4)
        for row in 0..<height {
            let start = data.startIndex + row * bytesPerRow
            pixels.append(contentsOf: data[start..<start + width * 4])
        }
        return pixels
    }
}
#endif
