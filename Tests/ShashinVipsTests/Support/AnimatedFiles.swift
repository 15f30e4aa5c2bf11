// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import CVips
import Foundation
import ShashinCore
@testable import ShashinVips

/// Animated images written by libvips itself: the frames stacked into one tall image, with
/// `page-height` saying where each frame ends, which is how libvips' savers take an animation.
enum AnimatedFiles {
    enum Failure: Error { case vips(String) }

    /// An animated WebP (lossless, so frame pixels are exact) or GIF of `frames`, all of one size,
    /// each shown for its entry of `delays` in milliseconds (libvips' default when `nil`),
    /// played `loop` times (0: forever; `nil`: libvips' default).
    static func make(_ format: ImageFormat, frames: [Bitmap], delays: [Int]? = nil, loop: Int? = nil) throws -> Data {
        // Whichever test comes first, libvips must be started before it is called.
        try VipsRuntime.start()
        let width = frames[0].width, height = frames[0].height
        precondition(frames.allSatisfy { $0.width == width && $0.height == height })
        var stacked = frames.flatMap(\.pixels)
        return try stacked.withUnsafeMutableBytes { pixels -> Data in
            guard let image = vips_image_new_from_memory(pixels.baseAddress, pixels.count, Int32(width),
                                                         Int32(height * frames.count), 4, VIPS_FORMAT_UCHAR) else {
                throw Failure.vips("new_from_memory")
            }
            defer { g_object_unref(UnsafeMutableRawPointer(image)) }
            func animate(_ image: UnsafeMutablePointer<VipsImage>) {
                vips_image_set_int(image, "page-height", Int32(height))
                if let delays { vips_image_set_array_int(image, "delay", delays.map { Int32($0) }, Int32(delays.count)) }
                if let loop { vips_image_set_int(image, "loop", Int32(loop)) }
            }
            animate(image)
            var buffer: UnsafeMutableRawPointer?
            var length = 0
            let status: Int32
            switch format {
            case .webp: status = shashin_webpsave_buffer(image, &buffer, &length, 90, 1, 0)
            case .gif:
                // The GIF writer wants opaque RGB (see VipsImageEncoder).
                var opaque: UnsafeMutablePointer<VipsImage>?
                guard shashin_flatten(image, &opaque, 255) == 0, let opaque else { throw Failure.vips("flatten") }
                defer { g_object_unref(UnsafeMutableRawPointer(opaque)) }
                animate(opaque)
                status = shashin_gifsave_buffer(opaque, &buffer, &length, 1, 0)
            default: preconditionFailure("\(format) is not animated")
            }
            guard status == 0, let buffer else { throw Failure.vips(String(cString: vips_error_buffer())) }
            defer { g_free(buffer) }
            return Data(bytes: buffer, count: length)
        }
    }

    /// A `width` × `height` bitmap of one opaque colour.
    static func solid(width: Int, height: Int, _ r: UInt8, _ g: UInt8, _ b: UInt8) -> Bitmap {
        Bitmap(width: width, height: height, pixels: Array([[UInt8]](repeating: [r, g, b, 255], count: width * height).joined()))
    }
}
#endif
