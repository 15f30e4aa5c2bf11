import CImageKernels
import CVips
import ShashinCore

/// The built-in processors' pixel work on Linux: `Bitmap` (RGBA8, straight alpha) in, `Bitmap`
/// out. The public processors in `Shashin` (`ImageProcessors.Resize`, ...) call these.
///
/// Resampling goes through libvips and blurring is box passes in Swift, both with alpha
/// premultiplied, so a transparent pixel's colour never bleeds into its neighbours. Cropping and corner masks are plain copies
/// and per-pixel coverage in Swift: libvips 8.14 draws no antialiased shapes, and a mask only
/// needs the pixels near the edges. Safe to call from many threads at once; every vips image made
/// for a call is released before it returns, on success and on every error path.
package enum VipsProcessing {
    /// Resamples `source` (a rectangle inside `bitmap`; the whole image when `nil`) to exactly
    /// `width` × `height`, which may change the aspect ratio: Lanczos 3 (after a box pre-shrink
    /// when shrinking by more than 4×), with alpha premultiplied unless the image is opaque.
    /// A result over `maxPixelCount` pixels is refused before anything is allocated (the caller's
    /// limit: the pipeline's configured one for processors, the decoding context's for thumbnails),
    /// so upscaling cannot allocate what a decompression bomb is refused for.
    /// Shrinks by at most `directShrinkLimit` (default `maxDirectShrink`) go through `shrink`
    /// (one C pass per axis); 0 sends every resize through libvips (tests compare the two paths).
    /// `boxGap` > 0 lets that pass average whole blocks first, leaving at least `boxGap` of the
    /// shrink to Lanczos (thumbnails; the processor keeps the pure Lanczos, 0).
    package static func resize(_ bitmap: Bitmap, source: PixelRect? = nil, width: Int, height: Int, maxPixelCount: Int,
                               directShrinkLimit: Int = maxDirectShrink, boxGap: Double = 0) throws(VipsProcessingError) -> Bitmap {
        let full = PixelRect(width: bitmap.width, height: bitmap.height)
        let source = source ?? full
        guard !full.isEmpty else {
            throw VipsProcessingError("A \(bitmap.width)×\(bitmap.height) image has no pixels to resize")
        }
        guard source.clamped(toWidth: bitmap.width, height: bitmap.height) == source, !source.isEmpty else {
            throw VipsProcessingError("The source rectangle \(source) is not inside the \(bitmap.width)×\(bitmap.height) image")
        }
        try checkOutputSize(width: width, height: height, maxPixelCount: maxPixelCount)
        if source.width == width, source.height == height {
            return copyPixels(of: bitmap, in: source)
        }
        let opaque = bitmap.isOpaque
        func within(_ side: Int, _ target: Int) -> Bool {
            let (most, overflow) = target.multipliedReportingOverflow(by: directShrinkLimit)
            return target <= side && (overflow || side <= most)
        }
        if within(source.width, width), within(source.height, height) {
            return try shrink(bitmap, source: source, width: width, height: height, premultiply: !opaque, boxGap: boxGap)
        }
        return try run(bitmap) { scope, image in
            var image = image
            if source != full {
                image = try scope.make {
                    shashin_extract_area(image, $0, Int32(source.x), Int32(source.y), Int32(source.width), Int32(source.height))
                }
            }
            let resample = { (image: VipsImagePointer) in try scope.resample(image, toWidth: width, height: height) }
            image = opaque ? try resample(image) : try scope.premultiplied(image, resample)
            if Int(vips_image_get_width(image)) != width || Int(vips_image_get_height(image)) != height {
                // Resampling rounds each side on its own; the caller asked for an exact size.
                let resampled = image
                image = try scope.make { shashin_embed_copy(resampled, $0, Int32(width), Int32(height)) }
            }
            return image
        }
    }

    /// The largest factor `shrink` takes on: its kernel grows with the factor (6 taps per unit),
    /// while libvips' box pre-shrink keeps larger reductions cheap.
    static let maxDirectShrink = 8

    /// Shrinks `source` (inside `bitmap`) to `width` × `height` with one Lanczos-3 pass per axis
    /// in C (`shashin_rgba_shrink`): the same kernel as the libvips path, without its box
    /// pre-shrink and its per-operation costs, which measured 15–21 ms for 1024² → 256² (one core)
    /// against this path's few milliseconds.
    private static func shrink(_ bitmap: Bitmap, source: PixelRect, width: Int, height: Int,
                               premultiply: Bool, boxGap: Double) throws(VipsProcessingError) -> Bitmap {
        let count = width * height * 4
        var failed = false
        let pixels = bitmap.pixels.withUnsafeBytes { input in
            [UInt8](unsafeUninitializedCapacity: count) { output, initialized in
                let origin = input.baseAddress!.assumingMemoryBound(to: UInt8.self) + (source.y * bitmap.width + source.x) * 4
                failed = shashin_rgba_shrink(origin, Int32(source.width), Int32(source.height), bitmap.width * 4, 4,
                                             output.baseAddress, Int32(width), Int32(height), premultiply ? 1 : 0, boxGap) != 0
                initialized = failed ? 0 : count
            }
        }
        if failed { throw VipsProcessingError("Out of memory resizing to \(width)×\(height)") }
        return Bitmap(width: width, height: height, pixels: pixels)
    }

    /// Shrinks packed RGB8 pixels (opaque; `width` × `height`) to an RGBA bitmap of
    /// `targetWidth` × `targetHeight`, boxing first down to `boxGap` (see `resize`): the decoder's
    /// thumbnails of images without alpha, which skip adding an alpha band to the full image.
    package static func shrinkRGB(_ rgb: UnsafeRawBufferPointer, width: Int, height: Int, toWidth targetWidth: Int,
                                  height targetHeight: Int, boxGap: Double) throws(VipsProcessingError) -> Bitmap {
        precondition(rgb.count == width * height * 3 && targetWidth <= width && targetHeight <= height)
        let count = targetWidth * targetHeight * 4
        var failed = false
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { output, initialized in
            failed = shashin_rgba_shrink(rgb.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height),
                                         width * 3, 3, output.baseAddress, Int32(targetWidth), Int32(targetHeight), 0, boxGap) != 0
            initialized = failed ? 0 : count
        }
        if failed { throw VipsProcessingError("Out of memory resizing to \(targetWidth)×\(targetHeight)") }
        return Bitmap(width: targetWidth, height: targetHeight, pixels: pixels)
    }

    /// Blurs `bitmap` with a Gaussian of standard deviation `sigma` pixels; edges extend by
    /// repeating the border pixels, so the size is kept. `sigma` 0 returns the image unchanged;
    /// it is capped at the image's longer side (beyond that the result no longer changes
    /// visibly, while the kernel would keep growing).
    ///
    /// Three extended box blurs along each axis (see `boxBlur`), premultiplied, in floating
    /// point: a close approximation of the Gaussian whose cost does not grow with `sigma`
    /// (libvips' true Gaussian took 0.2–1.2 s on 1024×1024 for σ 4–16), and which keeps flat
    /// colours exactly.
    package static func gaussianBlur(_ bitmap: Bitmap, sigma: Double) throws(VipsProcessingError) -> Bitmap {
        guard sigma.isFinite, sigma >= 0 else {
            throw VipsProcessingError("The blur radius must be a finite number of pixels ≥ 0, not \(sigma)")
        }
        guard sigma > 0, bitmap.width > 0, bitmap.height > 0 else { return bitmap }
        let sigma = min(sigma, Double(max(bitmap.width, bitmap.height)))
        return boxBlur(bitmap, boxes: gaussianBoxes(sigma: sigma))
    }

    /// Throws unless a `width` × `height` result is positive, addressable by libvips and within
    /// `maxPixelCount`.
    static func checkOutputSize(width: Int, height: Int, maxPixelCount: Int) throws(VipsProcessingError) {
        if let refusal = OutputSize.refusal(width: width, height: height, maxPixelCount: maxPixelCount, maxSide: Int(Int32.max)) {
            throw VipsProcessingError(refusal)
        }
    }

    /// Wraps `bitmap`'s pixels (pinned, not copied) as a vips image, lets `body` build the
    /// operations on it, and writes the result into a new bitmap. Every image made is released
    /// when this returns, however it returns.
    private static func run(_ bitmap: Bitmap,
                            _ body: (VipsImageScope, VipsImagePointer) throws -> VipsImagePointer) throws(VipsProcessingError) -> Bitmap {
        do {
            try VipsRuntime.start()
            return try bitmap.pixels.withUnsafeBytes { pixels in
                try VipsImageScope.with { scope in
                    guard let wrapped = vips_image_new_from_memory(pixels.baseAddress, pixels.count, Int32(bitmap.width),
                                                                   Int32(bitmap.height), 4, VIPS_FORMAT_UCHAR) else {
                        throw VipsError.fromBuffer()
                    }
                    let output = try body(scope, scope.adopt(wrapped))
                    // Every operation here keeps four 8-bit bands; check rather than convert, so
                    // no colour conversion can slip in unnoticed.
                    guard vips_image_get_bands(output) == 4, vips_image_get_format(output) == VIPS_FORMAT_UCHAR else {
                        throw VipsProcessingError("libvips produced \(vips_image_get_bands(output)) bands of format \(vips_image_get_format(output).rawValue), not RGBA8")
                    }
                    return try scope.bitmap(from: output)
                }
            }
        } catch let error as VipsProcessingError {
            throw error
        } catch let error as VipsError {
            throw VipsProcessingError(error.message)
        } catch {
            throw VipsProcessingError(String(describing: error))
        }
    }
}

extension VipsImageScope {
    /// Runs `operation` on `image` with its colour premultiplied by alpha (as float), and
    /// returns the result straight again, as 8 bits: what resampling and blurring need so that
    /// the colour of transparent pixels does not leak into their neighbours.
    fileprivate func premultiplied(_ image: VipsImagePointer,
                                   _ operation: (VipsImagePointer) throws -> VipsImagePointer) throws -> VipsImagePointer {
        let premultiplied = try make { shashin_premultiply(image, $0) }
        let processed = try operation(premultiplied)
        return try rounded8Bit(make { shashin_unpremultiply(processed, $0) })
    }

    /// `image` resampled to `width` × `height` (or within a pixel of it): enlarged by Lanczos 3
    /// interpolation; shrunk by whole factors with a box filter while more than twice the
    /// reduction remains (libvips' own "gap" of 2), then the rest of the way by Lanczos 3.
    fileprivate func resample(_ image: VipsImagePointer, toWidth width: Int, height: Int) throws -> VipsImagePointer {
        let hFactor = Double(vips_image_get_width(image)) / Double(width)
        let vFactor = Double(vips_image_get_height(image)) / Double(height)
        if hFactor < 1 || vFactor < 1 {
            return try make { shashin_resize(image, $0, 1 / hFactor, 1 / vFactor) }
        }
        var image = image
        let hShrink = (hFactor / 2).rounded(.down), vShrink = (vFactor / 2).rounded(.down)
        if hShrink > 1 || vShrink > 1 {
            let input = image
            image = try make { shashin_shrink(input, $0, max(hShrink, 1), max(vShrink, 1)) }
        }
        let shrunkWidth = Int(vips_image_get_width(image)), shrunkHeight = Int(vips_image_get_height(image))
        guard shrunkWidth != width || shrunkHeight != height else { return image }
        let input = image
        return try make {
            shashin_reduce(input, $0, Double(shrunkWidth) / Double(width), Double(shrunkHeight) / Double(height))
        }
    }

    /// A float image rounded to the nearest 8-bit levels (a plain cast would truncate), clipped
    /// to 0...255.
    fileprivate func rounded8Bit(_ image: VipsImagePointer) throws -> VipsImagePointer {
        let rounded = try make { shashin_round(image, $0, VIPS_OPERATION_ROUND_RINT) }
        return try make { shashin_cast(rounded, $0, VIPS_FORMAT_UCHAR, 0) }
    }
}

extension Bitmap {
    /// Whether every pixel's alpha is 255.
    var isOpaque: Bool {
        pixels.withUnsafeBufferPointer { bytes in
            var index = 3
            while index < bytes.count {
                if bytes[index] != 255 { return false }
                index += 4
            }
            return true
        }
    }
}
