/// The one check of a processor's output size, shared by the libvips and Core Graphics
/// processors so both refuse the same sizes with the same words.
package enum OutputSize {
    /// Why a `width` × `height` output may not be made, or `nil` when it may: a side of 0 or
    /// less, a side over `maxSide` (what the platform's images can address), or more than
    /// `maxPixelCount` pixels (the pipeline's limit, so a processor cannot allocate what the
    /// decoder refuses as a decompression bomb).
    package static func refusal(width: Int, height: Int, maxPixelCount: Int, maxSide: Int = .max) -> String? {
        guard width > 0, height > 0 else {
            return "The target size \(width)×\(height) has no pixels"
        }
        guard width <= maxSide, height <= maxSide else {
            return "The target size \(width)×\(height) has a side over \(maxSide) pixels"
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= maxPixelCount else {
            return "The target size \(width)×\(height) is over the limit of \(maxPixelCount) pixels"
        }
        return nil
    }
}
