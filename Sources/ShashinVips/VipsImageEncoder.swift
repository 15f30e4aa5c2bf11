import CVips
import Foundation
import ShashinCore

/// Encodes bitmaps as JPEG, PNG, WebP, GIF, HEIC or AVIF with libvips. Safe to call from many
/// threads at once.
///
/// `quality` (0...1) maps to libvips' `Q` 1...100 for JPEG, lossy WebP, HEIC and AVIF;
/// `isLossless` writes lossless WebP (or HEIC/AVIF). PNG is lossless and ignores both; GIF
/// quantises to a 256-colour palette without dithering. Speed comes before file size: a
/// 4000×3000 image takes about 0.2 s as JPEG or PNG, 0.6 s as WebP and 1.2 s as GIF (one core,
/// busy 2-core machine). JPEG and GIF are written opaque: transparent pixels are composited over
/// white (JPEG has no alpha; libvips' GIF writer mangles RGBA input). HEIC and AVIF need libvips'
/// libheif module (with x265 and libaom); without it, and for BMP and TIFF, this throws
/// `VipsEncodingError`. A bitmap whose `animation` has decoded frames is written as an animated
/// GIF or WebP (frames, delays and loop count); other formats take its first frame.
///
/// ```swift
/// let jpeg = try VipsImageEncoder().encode(bitmap, as: .jpeg, quality: 0.8)
/// let webp = try VipsImageEncoder().encode(bitmap, options: .webp(lossless: true))
/// ```
public struct VipsImageEncoder: Sendable {
    /// Creates an encoder. It holds no state: libvips starts on the first encode.
    public init() {}

    /// Encodes `bitmap` as `format` at `quality` (lossy); see the type's notes.
    public func encodeBitmap(_ bitmap: Bitmap, as format: ImageFormat, quality: Double) throws(VipsEncodingError) -> Data {
        try encodeBitmap(bitmap, options: ImageEncodingOptions(format: format, quality: quality))
    }

    /// Encodes `bitmap` as `options` say; see the type's notes.
    public func encodeBitmap(_ bitmap: Bitmap, options: ImageEncodingOptions) throws(VipsEncodingError) -> Data {
        let format = options.format
        guard [.jpeg, .png, .webp, .gif, .heic, .avif].contains(format) else {
            throw VipsEncodingError(format: format, reason: "libvips encoding of \(format) is not supported by this encoder")
        }
        guard bitmap.width > 0, bitmap.height > 0 else {
            throw VipsEncodingError(format: format, reason: "An image of \(bitmap.width)×\(bitmap.height) pixels has nothing to encode")
        }
        do {
            try VipsRuntime.start()
            if format == .heic || format == .avif, !VipsRuntime.canSaveHEIF {
                throw VipsEncodingError(format: format, reason: VipsRuntime.missingHEIFReason)
            }
            if let animation = bitmap.animation, animation.frames.count > 1, format == .gif || format == .webp {
                return try Self.encodeAnimation(animation, options: options)
            }
            return try bitmap.pixels.withUnsafeBytes { pixels in
                try Self.encode(pixels, width: bitmap.width, height: bitmap.height, opaque: bitmap.isOpaque, options: options)
            }
        } catch let error as VipsEncodingError {
            throw error
        } catch let error as VipsError {
            throw VipsEncodingError(format: format, reason: error.message)
        } catch {
            throw VipsEncodingError(format: format, reason: String(describing: error))
        }
    }

    /// libvips' `Q` (1...100) for a 0...1 quality.
    static func vipsQuality(_ quality: Double) -> Int32 {
        guard quality.isFinite else { return 75 }
        return Int32((min(max(quality, 0), 1) * 100).rounded()).clamped(to: 1...100)
    }

    /// The save itself, while the pixels stay pinned: the vips image wraps them without a copy.
    /// An `opaque` image is written without its alpha channel where the format has a choice
    /// (PNG, WebP, HEIC, AVIF): smaller files, the same pixels.
    /// `animation` (`pageHeight` > 0) stacks its frames in `pixels`, `pageHeight` rows each, and
    /// gives their delays and loop count to the GIF and WebP savers.
    private static func encode(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, opaque: Bool,
                               options: ImageEncodingOptions,
                               animation: (pageHeight: Int, delays: [Int32], loop: Int32)? = nil) throws -> Data {
        let quality = options.quality
        return try VipsImageScope.with { scope in
            guard let wrapped = vips_image_new_from_memory(pixels.baseAddress, pixels.count, Int32(width), Int32(height), 4, VIPS_FORMAT_UCHAR) else {
                throw VipsError.fromBuffer()
            }
            let rgba = scope.adopt(wrapped)
            let image = opaque ? try scope.make { shashin_extract_band(rgba, $0, 0, 3) } : rgba
            func animate(_ image: VipsImagePointer) {
                guard let animation else { return }
                shashin_set_animation(image, Int32(animation.pageHeight), animation.delays, Int32(animation.delays.count), animation.loop)
            }
            var buffer: UnsafeMutableRawPointer?
            var length = 0
            let status: Int32
            switch options.format {
            case .jpeg:
                let flat = opaque ? image : try scope.make { shashin_flatten(image, $0, 255) }
                status = options.isProgressive
                    ? shashin_jpegsave_buffer_variant(flat, &buffer, &length, vipsQuality(quality), 1, VIPS_INTERPRETATION_sRGB)
                    : shashin_jpegsave_buffer(flat, &buffer, &length, vipsQuality(quality))
            case .png:
                // Level 3 of 9: several times faster than vips' default 6 for large images,
                // for files only slightly larger.
                status = shashin_pngsave_buffer(image, &buffer, &length, 3)
            case .webp:
                // Low efforts (libwebp's "method"; default 4): a 4000×3000 lossy WebP in ~0.5 s
                // instead of ~1.2 s for a file ~10% larger; lossless in ~0.8 s instead of ~2.8 s,
                // but much larger on easy content (a smooth gradient: 1.3 MB instead of 6 KB).
                let lossless = options.isLossless
                animate(image)
                status = shashin_webpsave_buffer(image, &buffer, &length, vipsQuality(quality), lossless ? 1 : 0, lossless ? 0 : 2)
            case .gif:
                // libvips 8.14's GIF writer (cgif 0.3, libimagequant) turns many pixels of RGBA
                // input transparent, opaque ones included; RGB input comes out right.
                let flat = opaque ? image : try scope.make { shashin_flatten(image, $0, 255) }
                animate(flat)
                // Fastest palette search, no dithering: about a third of the default's time,
                // and flat colours stay flat.
                status = shashin_gifsave_buffer(flat, &buffer, &length, 1, 0)
            case .heic, .avif:
                // Effort 2 of 9 for AVIF: libaom at its default takes seconds for a photo.
                let av1 = options.format == .avif
                status = shashin_heifsave_buffer(image, &buffer, &length, vipsQuality(quality), options.isLossless ? 1 : 0,
                                                 av1 ? 1 : 0, av1 ? 2 : 4)
            case .bmp, .tiff:
                preconditionFailure("checked by encodeBitmap")
            }
            guard status == 0, let buffer else {
                if let buffer { g_free(buffer) }
                throw VipsError.fromBuffer()
            }
            let data = Data(bytesNoCopy: buffer, count: length, deallocator: .custom { pointer, _ in g_free(pointer) })
            if options.format == .heic || options.format == .avif {
                try checkHEIF(data, format: options.format, width: width, height: height)
            }
            return data
        }
    }

    /// Every frame of `animation` as one animated GIF or WebP: the frames stacked into one tall
    /// image (how libvips' savers take an animation), with their delays in milliseconds and the
    /// loop count. GIF keeps delays to 10 ms.
    private static func encodeAnimation(_ animation: ImageAnimation, options: ImageEncodingOptions) throws -> Data {
        let first = animation.frames[0].bitmap
        guard animation.frames.allSatisfy({ $0.bitmap.width == first.width && $0.bitmap.height == first.height }) else {
            throw VipsEncodingError(format: options.format, reason: "The frames of an animation differ in size")
        }
        let (rows, overflow) = first.height.multipliedReportingOverflow(by: animation.frames.count)
        guard !overflow, rows <= Int(Int32.max) else {
            throw VipsEncodingError(format: options.format, reason: "\(animation.frames.count) frames of \(first.height) rows are too tall to stack")
        }
        var stacked = [UInt8]()
        stacked.reserveCapacity(first.pixels.count * animation.frames.count)
        for frame in animation.frames { stacked.append(contentsOf: frame.bitmap.pixels) }
        let delays = animation.frames.map { Int32(clamping: Int(($0.duration * 1000).rounded())) }
        let opaque = animation.frames.allSatisfy { $0.bitmap.isOpaque }
        return try stacked.withUnsafeBytes { pixels in
            try encode(pixels, width: first.width, height: rows, opaque: opaque, options: options,
                       animation: (first.height, delays, Int32(clamping: animation.loopCount)))
        }
    }

    /// Throws unless `data` holds a `width` × `height` image. libvips 8.14's heifsave reports
    /// success when libheif's encoder refuses the image (x265 and libaom cap the sides: 1×70,000
    /// fails), leaving a file of ~200 bytes with no image in it. Reading the header back is
    /// cheap (no pixel is decoded) and catches that.
    private static func checkHEIF(_ data: Data, format: ImageFormat, width: Int, height: Int) throws {
        let reason: String
        do {
            let size = try data.withUnsafeBytes { bytes in
                try VipsImageScope.with { scope in
                    let image = try scope.make {
                        shashin_heifload_buffer(bytes.baseAddress, bytes.count, $0, VIPS_ACCESS_SEQUENTIAL, VIPS_FAIL_ON_NONE)
                    }
                    return (width: Int(vips_image_get_width(image)), height: Int(vips_image_get_height(image)))
                }
            }
            if size == (width, height) { return }
            reason = "the file holds a \(size.width)×\(size.height) image"
        } catch let error as VipsError {
            reason = error.message
        }
        throw VipsEncodingError(format: format, reason: "libheif could not encode a \(width)×\(height) image: \(reason)")
    }
}

#if !canImport(UIKit) && !canImport(AppKit)
extension VipsImageEncoder: ImageEncoding {
    /// Encodes the platform's image, a `Bitmap`; see `encodeBitmap(_:options:)`.
    public func encode(_ image: PlatformImage, options: ImageEncodingOptions) throws -> Data {
        try encodeBitmap(image, options: options)
    }
}
#endif

private extension Comparable {
    func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
