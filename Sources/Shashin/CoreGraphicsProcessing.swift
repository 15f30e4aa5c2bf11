#if canImport(ImageIO)
import CoreGraphics
import CoreImage
import Foundation
import ShashinCore
#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

/// The built-in processors' pixel work on Apple platforms, with the same operations and meaning
/// as `VipsProcessing` on Linux: Core Graphics draws (resize with high-quality interpolation,
/// crop, rounded-rectangle and circle clips with antialiased edges, borders), Core Image blurs.
/// Results are 8-bit sRGB at their input's scale: opaque when the input is and the step adds no transparency
/// (resize, crop, blur), so they are stored as JPEG where the original was one; premultiplied
/// alpha otherwise (rounded corners, circles). A crop is a copy: it never keeps the larger
/// parent's pixels alive behind the memory cache's count.
///
/// This file is not compiled by the Linux CI; the tests in `ShashinAppleTests` mirror the Linux
/// processor tests' expectations.
enum CoreGraphicsProcessing {
    /// Why a step could not produce its image.
    struct Failure: Error, Sendable, CustomStringConvertible {
        let reason: String
        init(_ reason: String) { self.reason = reason }
        var description: String { reason }
    }

    /// A line drawn along the inside of a shape's edge.
    struct Border: Sendable, Hashable {
        var width: Double
        var red, green, blue, alpha: UInt8
    }

    /// One context, reused as Apple recommends, shared by every thread (`SharedCIContext` says why
    /// that is sound).
    private static let ciContext = SharedCIContext(options: [.cacheIntermediates: false])

    /// Draws `source` (a rectangle inside `image`) at exactly `width` × `height`. A result over
    /// `maxPixelCount` pixels (the pipeline's configured limit) is refused before any bitmap is
    /// made, so upscaling cannot allocate what a decompression bomb is refused for.
    /// The result has `scale` pixels per point, else its input's.
    static func resize(_ image: PlatformImage, source: PixelRect, width: Int, height: Int,
                       maxPixelCount: Int, scale: Double? = nil) throws(Failure) -> PlatformImage {
        if let refusal = OutputSize.refusal(width: width, height: height, maxPixelCount: maxPixelCount) {
            throw Failure(refusal)
        }
        let cgImage = try cgImage(of: image)
        guard let part = cgImage.cropping(to: CGRect(x: source.x, y: source.y, width: source.width, height: source.height)) else {
            throw Failure("The source rectangle \(source) is not inside the \(cgImage.width)×\(cgImage.height) image")
        }
        return try draw(width: width, height: height, opaque: isOpaque(cgImage), scale: scale ?? Self.scale(of: image)) { context in
            context.interpolationQuality = .high
            context.draw(part, in: CGRect(x: 0, y: 0, width: width, height: height))
        }
    }

    static func crop(_ image: PlatformImage, to rect: PixelRect) throws(Failure) -> PlatformImage {
        let cgImage = try cgImage(of: image)
        guard let part = cgImage.cropping(to: CGRect(x: rect.x, y: rect.y, width: rect.width, height: rect.height)) else {
            throw Failure("The rectangle \(rect) does not overlap the \(cgImage.width)×\(cgImage.height) image")
        }
        // Copied: `part` shares the parent's pixels, which the memory cache would not count.
        return try draw(width: part.width, height: part.height, opaque: isOpaque(cgImage), scale: scale(of: image)) { context in
            context.interpolationQuality = .none
            context.draw(part, in: CGRect(x: 0, y: 0, width: part.width, height: part.height))
        }
    }

    static func roundCorners(_ image: PlatformImage, radius: Double, border: Border?) throws(Failure) -> PlatformImage {
        guard radius.isFinite, radius >= 0 else {
            throw Failure("The corner radius must be a finite number of pixels ≥ 0, not \(radius)")
        }
        if let border, !(border.width.isFinite && border.width >= 0) {
            throw Failure("The border width must be a finite number of pixels ≥ 0, not \(border.width)")
        }
        let cgImage = try cgImage(of: image)
        let width = cgImage.width, height = cgImage.height
        guard width > 0, height > 0 else { return image }
        let bounds = CGRect(x: 0, y: 0, width: width, height: height)
        let halfShorter = Double(min(width, height)) / 2
        let radius = min(radius, halfShorter)
        let borderWidth = min(border?.width ?? 0, halfShorter)
        return try draw(width: width, height: height, opaque: false, scale: scale(of: image)) { context in
            context.addPath(CGPath(roundedRect: bounds, cornerWidth: radius, cornerHeight: radius, transform: nil))
            context.clip()
            context.draw(cgImage, in: bounds)
            guard let border, borderWidth > 0 else { return }
            // A stroke is centred on its path: inset by half the width, it lies inside the edge.
            let inset = bounds.insetBy(dx: borderWidth / 2, dy: borderWidth / 2)
            let innerRadius = max(0, radius - borderWidth / 2)
            context.addPath(CGPath(roundedRect: inset, cornerWidth: innerRadius, cornerHeight: innerRadius, transform: nil))
            context.setStrokeColor(red: CGFloat(border.red) / 255, green: CGFloat(border.green) / 255,
                                   blue: CGFloat(border.blue) / 255, alpha: CGFloat(border.alpha) / 255)
            context.setLineWidth(borderWidth)
            context.strokePath()
        }
    }

    /// The largest centred circle: the image cropped to its centred square, with corners of
    /// half its side.
    static func circle(_ image: PlatformImage, border: Border?) throws(Failure) -> PlatformImage {
        let cgImage = try cgImage(of: image)
        let side = min(cgImage.width, cgImage.height)
        guard side > 0 else { return image }
        let square = try crop(image, to: PixelRect(x: (cgImage.width - side) / 2, y: (cgImage.height - side) / 2, width: side, height: side))
        return try roundCorners(square, radius: Double(side) / 2, border: border)
    }

    /// A Gaussian of standard deviation `sigma`; edges extend by repeating the border pixels.
    static func gaussianBlur(_ image: PlatformImage, sigma: Double) throws(Failure) -> PlatformImage {
        guard sigma.isFinite, sigma >= 0 else {
            throw Failure("The blur radius must be a finite number of pixels ≥ 0, not \(sigma)")
        }
        guard sigma > 0 else { return image }
        let cgImage = try cgImage(of: image)
        let input = CIImage(cgImage: cgImage)
        let blurred = input.clampedToExtent().applyingGaussianBlur(sigma: min(sigma, Double(max(cgImage.width, cgImage.height))))
        // No `format:` argument: the SDK declares `CIFormat.RGBA8` as a mutable C global, which
        // Swift 6 refuses to read. Core Image picks the bitmap's layout and colour space; the
        // redraw makes it 8-bit sRGB like every other step, without the alpha channel Core Image
        // writes when the input is opaque (a blur adds no transparency).
        guard let output = ciContext.createCGImage(blurred.cropped(to: input.extent), from: input.extent) else {
            throw Failure("Core Image failed to blur the image")
        }
        return try makeImage(redrawn(output, width: output.width, height: output.height, opaque: isOpaque(cgImage)),
                             scale: scale(of: image))
    }

    // MARK: Images

    private static func cgImage(of image: PlatformImage) throws(Failure) -> CGImage {
        #if canImport(UIKit)
        let cgImage = image.cgImage
        #else
        let cgImage = image.cgImage(forProposedRect: nil, context: nil, hints: nil)
        #endif
        guard let cgImage else { throw Failure("The image has no bitmap") }
        return cgImage
    }

    /// Whether `image` has no alpha channel.
    static func isOpaque(_ image: CGImage) -> Bool {
        switch image.alphaInfo {
        case .none, .noneSkipFirst, .noneSkipLast: true
        default: false
        }
    }

    /// Whether `image`'s colour space is sRGB.
    static func isSRGB(_ image: CGImage) -> Bool {
        (image.colorSpace?.name as String?) == (CGColorSpace.sRGB as String)
    }

    /// `image` drawn at `width` × `height` into an 8-bit sRGB bitmap, with high-quality
    /// interpolation: Core Graphics converts its colours from its own colour space. The result
    /// has no alpha channel when `opaque` says so (by default: when `image` has none).
    static func redrawn(_ image: CGImage, width: Int, height: Int, opaque: Bool? = nil) throws(Failure) -> CGImage {
        try drawCGImage(width: width, height: height, opaque: opaque ?? isOpaque(image)) { context in
            context.interpolationQuality = .high
            context.draw(image, in: CGRect(x: 0, y: 0, width: width, height: height))
        }
    }

    /// `image` over opaque white, for formats without alpha (JPEG): what `ImageEncodingOptions.jpeg`
    /// promises on every platform.
    static func flattenedOverWhite(_ image: CGImage) throws(Failure) -> CGImage {
        try drawCGImage(width: image.width, height: image.height, opaque: true) { context in
            let bounds = CGRect(x: 0, y: 0, width: image.width, height: image.height)
            context.setFillColor(red: 1, green: 1, blue: 1, alpha: 1)
            context.fill(bounds)
            context.draw(image, in: bounds)
        }
    }

    /// `image`'s pixels at `scale` pixels per point; an animation is carried over.
    static func rescaled(_ image: PlatformImage, to scale: Double) -> PlatformImage {
        guard let cgImage = try? cgImage(of: image) else { return image }
        let result = makeImage(cgImage, scale: scale)
        result.animation = image.animation
        return result
    }

    /// `cgImage` as the platform's image at `scale` pixels per point (default 1).
    static func makeImage(_ cgImage: CGImage, scale: Double = 1) -> PlatformImage {
        #if canImport(UIKit)
        return UIImage(cgImage: cgImage, scale: scale, orientation: .up)
        #else
        return NSImage(cgImage: cgImage, size: NSSize(width: Double(cgImage.width) / scale, height: Double(cgImage.height) / scale))
        #endif
    }

    /// Pixels per point of `image`: a processor's result keeps its input's, so a thumbnail made
    /// for a 3× screen stays at 3× once cropped or rounded.
    static func scale(of image: PlatformImage) -> Double {
        #if canImport(UIKit)
        return Double(image.scale)
        #else
        guard let cgImage = image.cgImage(forProposedRect: nil, context: nil, hints: nil), image.size.width > 0 else { return 1 }
        return Double(cgImage.width) / Double(image.size.width)
        #endif
    }

    /// A new `width` × `height` sRGB image at `scale` drawn by `body`: transparent to start with
    /// and premultiplied, or without alpha when `opaque` (then `body` must cover every pixel).
    private static func draw(width: Int, height: Int, opaque: Bool, scale: Double,
                             _ body: (CGContext) -> Void) throws(Failure) -> PlatformImage {
        try makeImage(drawCGImage(width: width, height: height, opaque: opaque, body), scale: scale)
    }

    private static func drawCGImage(width: Int, height: Int, opaque: Bool, _ body: (CGContext) -> Void) throws(Failure) -> CGImage {
        let alpha: CGImageAlphaInfo = opaque ? .noneSkipLast : .premultipliedLast
        guard width > 0, height > 0, let space = CGColorSpace(name: CGColorSpace.sRGB),
              let context = CGContext(data: nil, width: width, height: height, bitsPerComponent: 8, bytesPerRow: 0, space: space,
                                      bitmapInfo: alpha.rawValue) else {
            throw Failure("Core Graphics could not make a \(width)×\(height) bitmap")
        }
        body(context)
        guard let output = context.makeImage() else { throw Failure("Core Graphics could not finish the image") }
        return output
    }
}
#endif
