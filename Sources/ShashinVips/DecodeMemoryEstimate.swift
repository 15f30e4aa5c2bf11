import CImageKernels
import ShashinCore

/// The peak memory of one decode, estimated from the image's header before any pixel is
/// decoded, for `DecodeMemoryBudget`: what the decode must hold at once, by how the format and
/// the path through the decoder work.
///
/// - The output: the RGBA8 bitmap of the target size (4 bytes a pixel).
/// - The whole image, at its own bit depth and channel count, when the decode cannot stream:
///   an interlaced PNG (Adam7 passes fill the whole image before any row is final), a GIF, HEIF
///   and WebP (decoded whole, WebP at its shrink-on-load scale), a rotated or flipped image at
///   full size (random access), and the thumbnail of a small image shrunk from memory.
/// - A progressive JPEG's DCT coefficients: every block of every component, 128 bytes each,
///   held until the last scan, whatever the output size.
/// - Working rows for streaming: 64 rows of float RGBA across the image.
/// - An animation's frames at the target size (GIF, WebP and APNG decode every frame before
///   any is delivered), and for an APNG the canvas, the composed copy being shrunk, a region
///   saved for `dispose_op` PREVIOUS and one frame's region decoded at up to 16-bit RGBA, each
///   at most the canvas (`VipsImageDecoder.decodeAPNG`).
///
/// A streaming decode (baseline JPEG, non-interlaced PNG) costs its output and rows only, which
/// is why a 10000×10000 baseline JPEG's thumbnail passes a budget its progressive twin does not.
struct DecodeMemoryEstimate: Equatable {
    var output = 0
    var wholeImage = 0
    var coefficients = 0
    var rows = 0

    /// The sum, saturating rather than overflowing.
    var bytes: Int {
        [output, wholeImage, coefficients, rows].reduce(0) { total, part in
            let (sum, overflow) = total.addingReportingOverflow(part)
            return overflow ? .max : sum
        }
    }

    /// `a` × `b` × … without overflow (saturating at `Int.max`).
    static func product(_ factors: Int...) -> Int {
        factors.reduce(1) { total, factor in
            let (result, overflow) = total.multipliedReportingOverflow(by: max(0, factor))
            return overflow ? .max : result
        }
    }

    /// The working rows of a streaming decode `width` pixels across.
    static func rows(width: Int) -> Int { product(width, 64, 4, 4) }

    /// The direct libjpeg-turbo path: output, rows at the DCT-scaled width, and a progressive
    /// file's coefficients.
    static func directJPEG(_ header: shashin_jpeg_header, target: (width: Int, height: Int), shrink: Int) -> DecodeMemoryEstimate {
        DecodeMemoryEstimate(output: product(target.width, target.height, 4),
                             coefficients: header.progressive != 0 ? Int(clamping: header.coefficient_bytes) : 0,
                             rows: rows(width: (Int(header.width) + shrink - 1) / max(1, shrink)))
    }

    /// The coefficient bytes of a progressive JPEG in `bytes`, read from its header; 0 for a
    /// baseline one or a header libjpeg cannot read.
    static func progressiveJPEGCoefficients(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard let base = bytes.baseAddress, let jpeg = shashin_jpeg_new() else { return 0 }
        defer { shashin_jpeg_free(jpeg) }
        guard shashin_jpeg_read_header(jpeg, base, bytes.count) == 0 else { return 0 }
        let header = shashin_jpeg_get_header(jpeg)
        return header.progressive != 0 ? Int(clamping: header.coefficient_bytes) : 0
    }
}
