#if SHASHIN_APPLE_SHAPE && !canImport(ImageIO)
import ShashinCore

/// The compile check `make check-apple-shape` (Linux, never run): the signatures the built-in
/// processors call on `CoreGraphicsProcessing`, without Core Graphics. The real pixel work is
/// `Sources/Shashin/CoreGraphicsProcessing.swift`; keep the two in step.
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

    private static let unavailable = Failure("The apple-shape compile check has no Core Graphics")

    static func resize(_ image: PlatformImage, source: PixelRect, width: Int, height: Int,
                       maxPixelCount: Int, scale: Double? = nil) throws(Failure) -> PlatformImage {
        throw unavailable
    }

    static func crop(_ image: PlatformImage, to rect: PixelRect) throws(Failure) -> PlatformImage {
        throw unavailable
    }

    static func roundCorners(_ image: PlatformImage, radius: Double, border: Border?) throws(Failure) -> PlatformImage {
        throw unavailable
    }

    static func circle(_ image: PlatformImage, border: Border?) throws(Failure) -> PlatformImage {
        throw unavailable
    }

    static func gaussianBlur(_ image: PlatformImage, sigma: Double) throws(Failure) -> PlatformImage {
        throw unavailable
    }
}
#endif
