import CImageKernels
import ShashinCore

/// The JPEG fast path: libjpeg-turbo called directly on the whole buffer, with the shrink done
/// by its DCT scaling and the rest by a separable Lanczos-3 resampler, writing upright RGBA
/// straight into the bitmap (`shashin_jpeg_*` in the CImageKernels C target).
///
/// Through libvips the same decode reads its input 4 KB at a time (which keeps libjpeg-turbo
/// off its fast Huffman decoder) and pays a fixed cost per operation after the load; for a
/// 256 px thumbnail of a 12 MP photo that is 10–15 % of the time.
///
/// It takes what it decodes as the libvips path would: greyscale, YCbCr or RGB data, any EXIF
/// orientation it can read without doubt (all eight are applied here), no upscaling, and
/// - no ICC profile, or one describing itself as sRGB: the samples are taken as they are, as
///   libvips takes them;
/// - on colour data, any other RGB profile lcms can use (Display P3, as every iPhone photo
///   carries, Adobe RGB, table-based profiles): the finished, already shrunk pixels go through
///   the same lcms transform to libvips' sRGB profile that libvips' `icc_transform` makes, which
///   is also what the libvips path does after its own shrink (`SRGBTransforms`).
///
/// Everything else is *declined*, and the caller decodes with libvips, which makes the final
/// decision: CMYK and YCCK, a profile on greyscale data, a profile lcms cannot read or that does
/// not describe RGB (corrupt, cut short, CMYK; libvips then ignores it), profile segments that do
/// not reassemble, unusual EXIF, any error libjpeg raises. Two things are decided here, with
/// libvips' answers: a header over the pixel limit throws `.imageTooLarge` before any pixel is
/// decoded, a decode whose estimated peak memory is over the budget throws `.decodeMemoryExceeded`
/// (a progressive file's coefficients counted), and data that ends early (or draws 100 libjpeg warnings) throws `.decodingFailed`
/// rather than giving part of an image.
enum DirectJPEGDecoder {
    /// What the direct path did with one JPEG.
    enum Outcome {
        case decoded(Bitmap)
        /// Not for this path; `reason` says why. Decode with libvips instead.
        case declined(reason: String)
    }

    /// The kernel for what remains after the DCT shrink: libvips' default for thumbnails.
    static let filter = SHASHIN_FILTER_LANCZOS3

    /// Decodes `bytes` (a JPEG) as `VipsImageDecoder` would: RGBA8, upright, exactly the
    /// thumbnail's target size when one is asked for.
    ///
    /// As a `preview`, `bytes` are the first complete scans of a progressive JPEG, whose end is
    /// taken as the end of the image (the missing coefficients are zero); a baseline JPEG is
    /// declined.
    static func decode(_ bytes: UnsafeRawBufferPointer, context: ImageDecodingContext,
                       preview: Bool = false) throws(ImagePipelineError) -> Outcome {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return .declined(reason: "no data") }
        guard let jpeg = shashin_jpeg_new() else { return .declined(reason: "out of memory") }
        defer { shashin_jpeg_free(jpeg) }
        if preview { shashin_jpeg_accept_end_of_data(jpeg) }

        let headerRead = shashin_jpeg_read_header(jpeg, base, bytes.count) == 0
        let header = shashin_jpeg_get_header(jpeg)
        // From the frame header alone, even when libjpeg then gave up on it (it refuses sides
        // over 65,500 pixels, which is no reason to call a bomb anything but too large).
        if header.width > 0, header.height > 0 {
            try context.checkPixelCount(width: Int(header.width), height: Int(header.height))
        }
        guard headerRead else { return try failure(of: jpeg, stage: .header) }
        let plan: Plan
        switch Self.plan(header, context: context, preview: preview) {
        case .declined(let reason): return .declined(reason: reason)
        case .planned(let planned): plan = planned
        }
        let reservation = try context.memoryBudget.reserve(plan.estimate.bytes)
        defer { reservation.release() }

        var failed = false
        let pixels = [UInt8](unsafeUninitializedCapacity: plan.byteCount) { buffer, initialized in
            failed = shashin_jpeg_decode(jpeg, plan.shrink, Int32(plan.stored.width), Int32(plan.stored.height),
                                         Int32(plan.orientation), Self.filter, buffer.baseAddress, plan.byteCount) != 0
            if !failed, let base = buffer.baseAddress { plan.finish(base) }
            initialized = failed ? 0 : plan.byteCount
        }
        if failed { return try failure(of: jpeg, stage: .pixels) }
        return .decoded(Bitmap(width: plan.target.width, height: plan.target.height, pixels: pixels))
    }

    /// How this path decodes an image, decided from its header alone.
    struct Plan {
        /// The upright size delivered.
        let target: (width: Int, height: Int)
        /// The size as stored (sides swapped for orientations 5...8).
        let stored: (width: Int, height: Int)
        /// libjpeg's DCT scaling: 1, 2, 4 or 8.
        let shrink: Int32
        let orientation: Int
        let colourTransform: SRGBTransform?
        let estimate: DecodeMemoryEstimate
        var pixelCount: Int { target.width * target.height }
        var byteCount: Int { pixelCount * 4 }

        /// What follows libjpeg's pixels: the transform to sRGB, when the profile asks for one.
        func finish(_ pixels: UnsafeMutablePointer<UInt8>) {
            colourTransform?.apply(to: pixels, count: pixelCount)
        }
    }

    enum Planning {
        case planned(Plan)
        case declined(String)
    }

    /// The plan for an image with this (read) header, or why this path declines it; a `preview`
    /// declines a baseline JPEG, which has no earlier scans to show.
    static func plan(_ header: shashin_jpeg_header, context: ImageDecodingContext, preview: Bool) -> Planning {
        if let reason = unsupportedReason(header) { return .declined(reason) }
        if preview, header.progressive == 0 { return .declined("a baseline JPEG, which has no earlier scans to preview") }
        var colourTransform: SRGBTransform?
        switch profile(header) {
        case .none: break
        case .transform(let transform): colourTransform = transform
        case .unsupported(let reason): return .declined(reason)
        }
        var orientation = 1
        if header.exif_count > 1 { return .declined("several Exif segments") }
        if header.exif_count == 1 {
            guard let exif = ExifOrientation.read(UnsafeRawBufferPointer(start: header.exif, count: Int(header.exif_length))) else {
                return .declined("an Exif orientation this path cannot read exactly")
            }
            orientation = exif
        }

        let width = Int(header.width), height = Int(header.height)
        let swapsSides = orientation >= 5
        let upright = swapsSides ? (width: height, height: width) : (width: width, height: height)
        let target = context.thumbnail?.targetSize(width: upright.width, height: upright.height) ?? upright
        if target.width > upright.width || target.height > upright.height {
            return .declined("upscaling, which libvips does with its own interpolator")
        }
        var shrink: Int32 = 1
        if target != upright {
            let scale = max(Double(target.width) / Double(upright.width), Double(target.height) / Double(upright.height))
            shrink = VipsLoader.jpegShrink(for: scale)
        }
        let stored = swapsSides ? (width: target.height, height: target.width) : target
        let (pixelCount, overflow) = target.width.multipliedReportingOverflow(by: target.height)
        guard !overflow, pixelCount <= Int32.max / 4 else { return .declined("a target size too large for this path") }
        return .planned(Plan(target: target, stored: stored, shrink: shrink, orientation: orientation,
                             colourTransform: colourTransform,
                             estimate: DecodeMemoryEstimate.directJPEG(header, target: target, shrink: Int(shrink))))
    }

    /// Why libvips, not this path, should decode an image with this header; `nil` when it can.
    private static func unsupportedReason(_ header: shashin_jpeg_header) -> String? {
        let space = header.color_space
        let plain = (header.components == 1 && space == SHASHIN_JPEG_GRAYSCALE)
            || (header.components == 3 && (space == SHASHIN_JPEG_YCBCR || space == SHASHIN_JPEG_RGB))
        return plain ? nil : "\(header.components) components in colour space \(space) (CMYK, YCCK or unknown)"
    }

    /// What the embedded ICC profile asks of the decoded pixels.
    private enum Profile {
        /// Nothing: there is none, or it describes sRGB.
        case none
        /// Transforming to sRGB, as libvips would.
        case transform(SRGBTransform)
        /// More than this path does; the reason goes to `.declined`.
        case unsupported(String)
    }

    private static func profile(_ header: shashin_jpeg_header) -> Profile {
        switch header.icc_state {
        case 0:
            return .none
        case 1:
            let bytes = UnsafeRawBufferPointer(start: header.icc, count: Int(header.icc_length))
            if ICCProfile(bytes).describesSRGB { return .none }
            guard header.components == 3 else {
                return .unsupported("an ICC profile on greyscale data, which libvips transforms")
            }
            guard let transform = SRGBTransforms.shared.transform(for: bytes) else {
                return .unsupported("an ICC profile lcms cannot read or use for RGB data, which libvips ignores")
            }
            return .transform(transform)
        default:
            return .unsupported("ICC profile segments that do not reassemble")
        }
    }

    /// The outcome of a libjpeg failure: data that ends early fails the decode (libvips would
    /// refuse it the same way), its message naming `stage` and libjpeg's words; anything else
    /// goes to libvips.
    static func failure(of jpeg: OpaquePointer, stage: DecodingFailure.Stage) throws(ImagePipelineError) -> Outcome {
        let message = String(cString: shashin_jpeg_get_message(jpeg))
        if shashin_jpeg_get_failure(jpeg) == SHASHIN_JPEG_INCOMPLETE {
            let words = message.isEmpty ? "libjpeg-turbo stopped at the end of the data without a message: the data is truncated"
                : "libjpeg-turbo said \"\(message)\""
            throw .decodingFailed(format: .jpeg, reason: "while \(stage.description("JPEG")): \(words)")
        }
        return .declined(reason: "libjpeg: \(message)")
    }
}
