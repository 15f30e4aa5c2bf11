import CVips
import ShashinCore

/// The libvips loader for one sniffed format, called directly rather than through vips' own
/// sniffing, so bytes we took for a PNG can never reach, say, the SVG or PDF loader.
struct VipsLoader {
    /// The format this loader reads.
    let format: ImageFormat

    /// The loader for `format`, or `nil` when this decoder does not read it.
    init?(format: ImageFormat) {
        switch format {
        case .jpeg, .png, .webp, .gif, .heic, .avif: self.format = format
        case .bmp, .tiff: return nil
        }
    }

    /// Truncated data fails instead of giving a partly grey image. Every corrupt PngSuite file
    /// already fails at this level; the strictest (`warning`) would also refuse JPEGs whose only
    /// fault is a libjpeg warning, which browsers show.
    private var failOn: VipsFailOn { VIPS_FAIL_ON_TRUNCATED }

    /// Opens `bytes` as an image: reads the header now, the pixels when the image is written.
    ///
    /// `scale` (at most 1) asks for shrink-on-load: JPEG decodes at 1/2, 1/4 or 1/8 through
    /// its DCT, never below `scale`; WebP scales while decoding. Other formats load at full size.
    func load(_ bytes: UnsafeRawBufferPointer, access: VipsAccess, scale: Double = 1,
              into out: UnsafeMutablePointer<VipsImagePointer?>) -> Int32 {
        let base = bytes.baseAddress
        switch format {
        case .jpeg:
            return shashin_jpegload_buffer(base, bytes.count, out, access, failOn, Self.jpegShrink(for: scale))
        case .png:
            return shashin_pngload_buffer(base, bytes.count, out, access, failOn)
        case .webp:
            return shashin_webpload_buffer(base, bytes.count, out, access, failOn, min(1, max(scale, 0.0001)))
        case .gif:
            return shashin_gifload_buffer(base, bytes.count, out, access, failOn)
        case .heic, .avif:
            return shashin_heifload_buffer(base, bytes.count, out, access, failOn)
        case .bmp, .tiff:
            preconditionFailure("VipsLoader is never made for \(format)")
        }
    }

    /// Whether loading at `scale` decodes fewer pixels than loading at full size, which is
    /// worth a second pass over the header.
    func shrinksOnLoad(scale: Double) -> Bool {
        switch format {
        case .jpeg: Self.jpegShrink(for: scale) > 1
        case .webp: scale < 1
        default: false
        }
    }

    /// The largest DCT shrink (8, 4, 2 or 1) that keeps the image at least `scale` of its size.
    static func jpegShrink(for scale: Double) -> Int32 {
        guard scale > 0 else { return 1 }
        let most = 1 / scale
        return [8, 4, 2].first { Double($0) <= most } ?? 1
    }
}
