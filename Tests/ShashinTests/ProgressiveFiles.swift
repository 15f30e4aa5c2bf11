// Progressive JPEGs are written with libvips, which exists only where Shashin decodes with it.
#if canImport(ShashinVips) && !SHASHIN_APPLE_SHAPE
import CVips
import Foundation
import ImageServer
import Shashin
@testable import ShashinVips

/// Progressive and baseline JPEGs for the preview tests, and where their scans end.
enum ProgressiveFiles {
    /// A photo-like `width` × `height` JPEG (smooth fields, fine texture, hard edges) written by
    /// libvips, progressive (`interlace`) or baseline.
    static func jpeg(width: Int = 800, height: Int = 600, progressive: Bool = true) throws -> Data {
        try VipsRuntime.start()
        var samples = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                let fx = Double(x) / Double(width), fy = Double(y) / Double(height)
                let texture = 40 * sin(Double(x) * 0.7) * cos(Double(y) * 0.45)
                let block = (x / 60 + y / 45) % 3 == 0 ? 60.0 : 0
                samples[i] = UInt8(clamping: Int(200 * fx + texture + block))
                samples[i + 1] = UInt8(clamping: Int(180 * fy - texture / 2 + 30))
                samples[i + 2] = UInt8(clamping: Int(120 + 100 * sin(fx * 9 + fy * 5) + block / 2))
            }
        }
        return try samples.withUnsafeBytes { pixels in
            guard let image = vips_image_new_from_memory(pixels.baseAddress, pixels.count, Int32(width), Int32(height),
                                                         3, VIPS_FORMAT_UCHAR) else { throw VipsError.fromBuffer() }
            defer { g_object_unref(UnsafeMutableRawPointer(image)) }
            var buffer: UnsafeMutableRawPointer?
            var length = 0
            guard shashin_jpegsave_buffer_variant(image, &buffer, &length, 85, progressive ? 1 : 0, VIPS_INTERPRETATION_sRGB) == 0,
                  let buffer else { throw VipsError.fromBuffer() }
            defer { g_free(buffer) }
            return Data(bytes: buffer, count: length)
        }
    }

    /// The offset where each scan's entropy-coded data ends (at the marker after it), in order.
    static func scanEnds(_ data: Data) -> [Int] {
        let bytes = [UInt8](data)
        var index = 2
        var ends: [Int] = []
        while index + 3 < bytes.count, bytes[index] == 0xFF, bytes[index + 1] != 0xD9 {
            let marker = bytes[index + 1]
            index += 2 + (Int(bytes[index + 2]) << 8 | Int(bytes[index + 3]))
            guard marker == 0xDA else { continue }
            while index + 1 < bytes.count {
                let next = bytes[index + 1]
                if bytes[index] == 0xFF, next != 0x00, next != 0xFF, !(0xD0...0xD7).contains(next) { break }
                index += 1
            }
            ends.append(index)
        }
        return ends
    }

    /// A gate that stops the body just after each scan but the last is complete (two bytes into
    /// the marker that follows it), so each scan reaches the client on its own.
    static func gatePerScan(_ data: Data) -> BodyGate {
        BodyGate(stops: scanEnds(data).dropLast().map { $0 + 2 })
    }

    /// Mean absolute difference of the colour samples of two bitmaps of one size.
    static func meanDifference(_ a: Bitmap, _ b: Bitmap) -> Double {
        precondition(a.width == b.width && a.height == b.height)
        var total = 0
        for i in stride(from: 0, to: a.pixels.count, by: 4) {
            for c in 0..<3 { total += abs(Int(a.pixels[i + c]) - Int(b.pixels[i + c])) }
        }
        return Double(total) / Double(a.width * a.height * 3)
    }
}
#endif
