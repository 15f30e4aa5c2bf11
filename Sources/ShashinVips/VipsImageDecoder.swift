import CVips
import Foundation
import ShashinCore

/// Decodes JPEG, PNG, WebP, GIF, HEIC and AVIF with libvips into 8-bit sRGB RGBA bitmaps,
/// upright (EXIF orientation applied), downsampling while decoding when asked for a thumbnail.
/// An animated GIF, WebP or PNG (APNG) gives its first frame, with `Bitmap.animation` holding
/// every frame at the same size, their durations and the loop count (or, over `maxPixelCount`
/// across all frames or `maxAnimationByteCount`, the first frame only, flagged; for an APNG
/// that is its default image, the still a viewer without APNG support shows). HEIC and AVIF
/// need libvips' libheif module; without it they fail with `.decodingFailed` saying what to install.
///
/// Plain JPEGs (greyscale, YCbCr or RGB, upright or with an EXIF orientation) skip libvips:
/// libjpeg-turbo decodes them straight from the buffer, shrinking through its DCT, and a
/// Lanczos-3 resampler takes them the rest of the way to the thumbnail size. Colour JPEGs with
/// an RGB ICC profile other than sRGB (Display P3 from phones, Adobe RGB) stay on that path too:
/// the shrunk result goes through lcms to sRGB, as libvips would do it. CMYK and YCCK JPEGs,
/// profiles lcms cannot use, and any JPEG libjpeg-turbo alone does not decode cleanly go
/// through libvips.
///
/// Safe to call from many threads at once; each call is independent. Failures are
/// `ImagePipelineError.decodingFailed`, whose reason names the format, the step that failed and
/// what libvips, libpng or libjpeg said (or that they gave no reason), or `.imageTooLarge`.
///
/// ```swift
/// let bitmap = try VipsImageDecoder().decode(data, context: .init(format: .jpeg, thumbnail: .init(maxPixelSize: 256)))
/// ```
public struct VipsImageDecoder: Sendable {
    /// Whether plain JPEGs take the direct libjpeg-turbo path (off only in tests, to compare
    /// its results with libvips').
    let decodesJPEGDirectly: Bool

    /// Creates a decoder. libvips starts on the first decode.
    public init() {
        decodesJPEGDirectly = true
    }

    /// A decoder that sends every JPEG through libvips when `decodesJPEGDirectly` is `false`.
    init(decodesJPEGDirectly: Bool) {
        self.decodesJPEGDirectly = decodesJPEGDirectly
    }

    /// Decodes `data` into a `Bitmap`: RGBA8, sRGB, orientation applied, grey and palette
    /// expanded, opaque alpha added when the image has none.
    ///
    /// With `context.thumbnail`, the result is exactly `thumbnail.targetSize(width:height:)` of
    /// the upright image (JPEG and WebP shrink while decoding). The header is read first:
    /// when its width × height passes `context.maxPixelCount` this throws `.imageTooLarge`
    /// before any pixel is decoded. The format is sniffed from `data` itself; truncated or
    /// corrupt data throws rather than returning part of an image; an animation cut after some
    /// complete frames keeps those, flagged `AnimationShortfall.damaged`.
    public func decodeBitmap(_ data: Data, context: ImageDecodingContext) throws(ImagePipelineError) -> Bitmap {
        guard let format = ImageFormat(sniffing: data) else {
            throw .decodingFailed(format: nil, reason: "while recognising the format: " + Self.unrecognised(data))
        }
        guard let loader = VipsLoader(format: format) else {
            throw .decodingFailed(format: format, reason: "while choosing a decoder: this decoder does not read \(format.displayName) "
                                  + "(it reads JPEG, PNG, WebP, GIF, HEIC and AVIF)")
        }
        return try VipsErrorBuffer.decoding(format) { () throws(ImagePipelineError) -> Bitmap in
            do {
                do throws(VipsError) {
                    try VipsRuntime.start()
                } catch {
                    throw ImagePipelineError.decodingFailed(format: format, reason: "while starting libvips: \(error.message)")
                }
                if format == .heic || format == .avif, !VipsRuntime.canLoadHEIF {
                    throw ImagePipelineError.decodingFailed(format: format, reason: "while choosing a decoder: \(VipsRuntime.missingHEIFReason)")
                }
                return try data.withUnsafeBytes { bytes in
                    if format == .jpeg, decodesJPEGDirectly,
                       case .decoded(let bitmap) = try DirectJPEGDecoder.decode(bytes, context: context) {
                        return bitmap
                    }
                    if format == .png { try PNGChunkGuard.check(bytes) }
                    let isAPNG = format == .png && APNGStructure.isAnimated(bytes)
                    guard format == .gif || format == .webp || isAPNG else { return try Self.decode(bytes, loader: loader, context: context).0 }
                    let animated = isAPNG ? try Self.decodeAPNG(bytes, data: data, context: context)
                        : try Self.decodeAnimation(bytes, data: data, loader: loader, context: context)
                    switch animated {
                    case .animated(let bitmap):
                        return bitmap
                    case .still:
                        return try Self.decode(bytes, loader: loader, context: context).0
                    case .firstFrameOnly(let animation):
                        var first = try Self.decode(bytes, loader: loader, context: context).0
                        first.animation = animation
                        return first
                    }
                }
            } catch let error as ImagePipelineError {
                throw error
            } catch let failure as DecodingFailure {
                var warnings = VipsErrorBuffer.warnings()
                if warnings.isEmpty, format == .png, failure.stage == .pixels {
                    warnings = Self.libpngWordsFromSequentialRead(data, loader: loader)
                }
                throw .decodingFailed(format: format, reason: failure.reason(format: format, warnings: warnings))
            } catch {
                let failure = DecodingFailure(stage: .pixels, libvipsLines: [String(describing: error)])
                throw .decodingFailed(format: format, reason: failure.reason(format: format, warnings: VipsErrorBuffer.warnings()))
            }
        }
    }

    /// libpng's words for a PNG whose pixels failed without leaving any on this thread: a load
    /// with random access (to turn the image upright) decodes on a vips worker thread, whose
    /// warnings are not kept. Reads the data again, sequentially on this thread and keeping no
    /// pixels, only for what libpng says; not for an interlaced PNG, which libvips would read whole.
    private static func libpngWordsFromSequentialRead(_ data: Data, loader: VipsLoader) -> [String] {
        guard data.count > 28, data[data.startIndex + 28] == 0 else { return [] }
        data.withUnsafeBytes { bytes in
            _ = try? VipsImageScope.with { scope in
                let image = try scope.make { loader.load(bytes, access: VIPS_ACCESS_SEQUENTIAL, into: $0) }
                if shashin_read_through(image) != 0 { _ = VipsErrorBuffer.take() }
            }
        }
        return VipsErrorBuffer.warnings()
    }

    /// Why `data` has no known format, with its first bytes; a PNG signature with a byte or two
    /// damaged (a text-mode transfer turns its CR LF into LF) is called that.
    static func unrecognised(_ data: Data) -> String {
        guard !data.isEmpty else { return "the data is empty" }
        let start = data.prefix(8).map { byte in (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true) }.joined(separator: " ")
        let pngStart: [UInt8] = [0x89, 0x50, 0x4E, 0x47]
        if data.count >= 8, zip(data.prefix(4), pngStart).filter({ $0 != $1 }).count <= 1 {
            return "the data starts like a PNG but its signature is damaged (its first bytes are \(start); "
                + "a PNG's are 89 50 4E 47 0D 0A 1A 0A)"
        }
        return "the data is not in any known image format (its first bytes are \(start))"
    }

    /// Runs one step of a decode: a libvips failure in it becomes a `DecodingFailure` naming it.
    static func during<T>(_ stage: DecodingFailure.Stage, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as VipsError {
            throw DecodingFailure(stage: stage, libvipsLines: error.lines)
        } catch let error as VipsProcessingError {
            throw DecodingFailure(stage: stage, libvipsLines: [String(describing: error)])
        }
    }

    /// The largest image (in pixels) whose thumbnail is made by decoding it whole and shrinking
    /// the bitmap, when the format has no shrink-on-load: 16 MP, a transient 64 MB; larger ones
    /// stream through libvips' thumbnail, which holds only a few rows at a time.
    static let maxPixelCountForDirectShrink = 16_000_000

    /// The whole decode, while `bytes` stay pinned: vips reads them lazily, up to the last
    /// written pixel, and every image made here is released before this returns. Gives the
    /// bitmap and the number of frames (pages) the file holds.
    private static func decode(_ bytes: UnsafeRawBufferPointer, loader: VipsLoader, context: ImageDecodingContext) throws -> (Bitmap, Int) {
        try VipsImageScope.with { scope in
            let header = try during(.header) { try scope.make { loader.load(bytes, access: VIPS_ACCESS_SEQUENTIAL, into: $0) } }
            let width = Int(vips_image_get_width(header))
            let height = Int(vips_image_get_height(header))
            try context.checkPixelCount(width: width, height: height)
            let upright = vips_image_get_orientation_swap(header) != 0 ? (width: height, height: width) : (width: width, height: height)
            let target = context.thumbnail?.targetSize(width: upright.width, height: upright.height) ?? upright
            try checkTargetSize(target, in: context)

            let frameCount = Int(vips_image_get_n_pages(header))
            let orientation = vips_image_get_orientation(header)
            let shrinksWhole = target != upright && !loader.shrinksOnLoad(scale: 0.5) && width * height <= maxPixelCountForDirectShrink
                && target.width <= upright.width && target.height <= upright.height
            let estimate = memoryEstimate(header, bytes: bytes, loader: loader, upright: upright, target: target,
                                          shrinksWhole: shrinksWhole, turns: orientation != 1)
            let reservation = try context.memoryBudget.reserve(estimate.bytes)
            defer { reservation.release() }
            var image = header
            if shrinksWhole {
                let whole = orientation == 1 ? header
                    : try during(.reopen) { try scope.make { loader.load(bytes, access: VIPS_ACCESS_RANDOM, into: $0) } }
                let shrunk = try shrinkWhole(whole, in: scope, upright: upright, to: target, maxPixelCount: context.maxPixelCount)
                DecodedFrameCounter.add(1)
                return (shrunk, frameCount)
            }
            if target != upright {
                let scale = max(Double(target.width) / Double(upright.width), Double(target.height) / Double(upright.height))
                if loader.shrinksOnLoad(scale: scale) {
                    image = try during(.shrinkOnLoad) { try scope.make { loader.load(bytes, access: VIPS_ACCESS_SEQUENTIAL, scale: scale, into: $0) } }
                }
                let source = image
                image = try during(.thumbnail) { try scope.make { shashin_thumbnail_image(source, $0, Int32(target.width), Int32(target.height)) } }
            } else if orientation != 1 {
                // Turning or flipping reads rows out of order, which a sequential load refuses
                // ("out of order read"): load for random access (vips buffers the pixels).
                image = try during(.reopen) { try scope.make { loader.load(bytes, access: VIPS_ACCESS_RANDOM, into: $0) } }
            }
            let converted = image
            image = try during(.conversion) { try scope.uprightRGBA8(converted) }
            if Int(vips_image_get_width(image)) != target.width || Int(vips_image_get_height(image)) != target.height {
                // Resampling rounds each side on its own; never let that leak out as a size
                // other than the one asked for.
                let resized = image
                image = try during(.thumbnail) { try scope.make { shashin_embed_copy(resized, $0, Int32(target.width), Int32(target.height)) } }
            }
            let final = image
            let bitmap = try during(.pixels) { try scope.bitmap(from: final) }
            DecodedFrameCounter.add(1)
            return (bitmap, frameCount)
        }
    }

    /// The peak memory of the libvips decode `decode` is about to run (see `DecodeMemoryEstimate`).
    static func memoryEstimate(_ header: VipsImagePointer, bytes: UnsafeRawBufferPointer, loader: VipsLoader,
                               upright: (width: Int, height: Int), target: (width: Int, height: Int),
                               shrinksWhole: Bool, turns: Bool) -> DecodeMemoryEstimate {
        typealias E = DecodeMemoryEstimate
        let width = Int(vips_image_get_width(header)), height = Int(vips_image_get_height(header))
        let whole = E.product(width, height, Int(vips_image_get_bands(header)), Int(vips_format_sizeof(vips_image_get_format(header))))
        var estimate = E(output: E.product(target.width, target.height, 4), rows: E.rows(width: width))
        let fullSize = target == upright
        switch loader.format {
        case .png:
            let interlaced = vips_image_get_typeof(header, "interlaced") != 0
            if interlaced || shrinksWhole || (fullSize && turns) { estimate.wholeImage = whole }
        case .jpeg:
            estimate.coefficients = E.progressiveJPEGCoefficients(bytes)
            if fullSize && turns { estimate.wholeImage = whole }
            if !fullSize {
                // Rows at the size the DCT shrink decodes to.
                let scale = max(Double(target.width) / Double(upright.width), Double(target.height) / Double(upright.height))
                estimate.rows = E.rows(width: width / Int(VipsLoader.jpegShrink(for: scale)))
            }
        case .webp:
            // Decoded whole, at the shrink-on-load scale.
            let scale = fullSize ? 1 : max(Double(target.width) / Double(upright.width), Double(target.height) / Double(upright.height))
            estimate.wholeImage = Int(min(Double(Int.max / 2), Double(whole) * min(1, scale * scale)))
        default:
            estimate.wholeImage = whole
        }
        if shrinksWhole {
            // The sRGB 8-bit copy the shrink reads, besides the decoded image.
            estimate.wholeImage = E.product(width, height, 4) > Int.max - estimate.wholeImage ? .max
                : estimate.wholeImage + E.product(width, height, 4)
        }
        return estimate
    }

    /// Throws `.imageTooLarge` unless a thumbnail of `target` pixels (larger than the image when
    /// upscaling, so the header's check does not cover it) is within `limit` and has sides
    /// libvips can address.
    static func checkTargetSize(_ target: (width: Int, height: Int), in context: ImageDecodingContext) throws(ImagePipelineError) {
        try context.checkPixelCount(width: target.width, height: target.height)
        guard target.width <= Int(Int32.max), target.height <= Int(Int32.max) else {
            throw .imageTooLarge(width: target.width, height: target.height, limit: context.maxPixelCount)
        }
    }

    /// The thumbnail of a format without shrink-on-load (PNG, GIF, HEIF), where every pixel is
    /// decoded either way: `image` written to memory whole, then averaged in blocks and resampled
    /// with Lanczos 3 for the last 2× or more in C (the "reducing gap" of libvips' thumbnail and
    /// Pillow's). That measured about a third of the time of libvips' streaming thumbnail for a
    /// 2000×2000 PNG with alpha, which premultiplies and resamples in float through several
    /// operations. An image without alpha is shrunk straight from RGB.
    private static func shrinkWhole(_ image: VipsImagePointer, in scope: VipsImageScope, upright: (width: Int, height: Int),
                                    to target: (width: Int, height: Int), maxPixelCount: Int) throws -> Bitmap {
        let srgb = try during(.conversion) { try scope.uprightSRGB8(image) }
        if vips_image_get_bands(srgb) == 3 {
            let rgb = try during(.pixels) { try scope.bytes(from: srgb) }
            return try during(.thumbnail) {
                try rgb.withUnsafeBytes { rgb throws(VipsProcessingError) in
                    try VipsProcessing.shrinkRGB(rgb, width: upright.width, height: upright.height, toWidth: target.width,
                                                 height: target.height, boxGap: 2)
                }
            }
        }
        let four = try during(.conversion) { try scope.fourBands(srgb) }
        let full = try during(.pixels) { try scope.bitmap(from: four) }
        return try during(.thumbnail) {
            try VipsProcessing.resize(full, width: target.width, height: target.height, maxPixelCount: maxPixelCount,
                                      directShrinkLimit: .max, boxGap: 2)
        }
    }
}

#if !canImport(UIKit) && !canImport(AppKit)
extension VipsImageDecoder: ImageDecoding {
    /// Decodes `data` into the platform's image, a `Bitmap`; see `decodeBitmap(_:context:)`.
    public func decode(_ data: Data, context: ImageDecodingContext) throws -> PlatformImage {
        try decodeBitmap(data, context: context)
    }
}
#endif
