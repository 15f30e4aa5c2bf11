// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import CVips
import Foundation
import ShashinCore
@testable import ShashinVips

/// JPEG variants for the direct libjpeg-turbo path: written by libvips where it can
/// (progressive, greyscale, CMYK), patched byte by byte where it cannot (ICC segments, frame
/// sizes, truncation).
enum JPEGFiles {
    /// `samples` (`width * height * bands` bytes, rows packed) written as a JPEG by libvips.
    /// One band is greyscale; four bands are CMYK.
    static func encode(_ samples: [UInt8], width: Int, height: Int, bands: Int, quality: Int32 = 90,
                       progressive: Bool = false) throws -> Data {
        precondition(samples.count == width * height * bands)
        try VipsRuntime.start()
        let interpretation: VipsInterpretation = switch bands {
        case 1: VIPS_INTERPRETATION_B_W
        case 4: VIPS_INTERPRETATION_CMYK
        default: VIPS_INTERPRETATION_sRGB
        }
        return try samples.withUnsafeBytes { pixels in
            guard let image = vips_image_new_from_memory(pixels.baseAddress, pixels.count, Int32(width), Int32(height),
                                                         Int32(bands), VIPS_FORMAT_UCHAR) else {
                throw VipsError.fromBuffer()
            }
            defer { g_object_unref(UnsafeMutableRawPointer(image)) }
            var buffer: UnsafeMutableRawPointer?
            var length = 0
            guard shashin_jpegsave_buffer_variant(image, &buffer, &length, quality, progressive ? 1 : 0, interpretation) == 0,
                  let buffer else {
                throw VipsError.fromBuffer()
            }
            defer { g_free(buffer) }
            return Data(bytes: buffer, count: length)
        }
    }

    /// The red, green and blue samples of `bitmap` (dropping alpha).
    static func rgb(_ bitmap: Bitmap) -> [UInt8] {
        var samples: [UInt8] = []
        samples.reserveCapacity(bitmap.width * bitmap.height * 3)
        for i in stride(from: 0, to: bitmap.pixels.count, by: 4) { samples += bitmap.pixels[i..<i + 3] }
        return samples
    }

    /// Something like a photo: smooth colour fields, fine texture, a hard-edged block and a thin
    /// line (the edges are where resamplers differ most).
    static func photo(width: Int, height: Int) -> Bitmap {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let fx = Double(x), fy = Double(y)
                var r = 120 + 70 * sin(fx / 97) * cos(fy / 71) + 25 * sin((fx + fy) / 9)
                var g = 110 + 60 * cos(fx / 53 + fy / 131) + 20 * sin(fx / 5) * sin(fy / 7)
                var b = 130 + 80 * sin(fy / 61) - 30 * cos(fx / 13)
                if x > width / 3, x < width / 2, y > height / 4, y < height * 2 / 3 { r = 240; g = 230; b = 30 }
                if abs(x - y * width / height) < 2 { r = 10; g = 10; b = 10 }
                let i = (y * width + x) * 4
                pixels[i] = UInt8(max(0, min(255, r.rounded())))
                pixels[i + 1] = UInt8(max(0, min(255, g.rounded())))
                pixels[i + 2] = UInt8(max(0, min(255, b.rounded())))
            }
        }
        return Bitmap(width: width, height: height, pixels: pixels)
    }

    /// `jpeg` with `profile` in APP2 "ICC_PROFILE" segments right after SOI, split into
    /// `segments` pieces (numbered `first`, `first + 1`, ... of `declared` in all).
    static func withICCProfile(_ jpeg: Data, profile: [UInt8], segments: Int = 1, first: UInt8 = 1, declared: UInt8? = nil) -> Data {
        var bytes = [UInt8](jpeg)
        precondition(bytes.starts(with: [0xFF, 0xD8]))
        let size = (profile.count + segments - 1) / segments
        var inserted: [UInt8] = []
        for index in 0..<segments {
            let piece = profile[min(profile.count, index * size)..<min(profile.count, (index + 1) * size)]
            let payload = Array("ICC_PROFILE".utf8) + [0, first + UInt8(index), declared ?? UInt8(segments)] + piece
            inserted += [0xFF, 0xE2, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        }
        bytes.insert(contentsOf: inserted, at: 2)
        return Data(bytes)
    }

    /// `jpeg` with its frame header (SOF0 or SOF2) declaring `width` × `height`: the shape of a
    /// decompression bomb, since the data stays as small as it was.
    static func withFrameSize(_ jpeg: Data, width: UInt16, height: UInt16) -> Data {
        var bytes = [UInt8](jpeg)
        var index = 2
        while index + 9 < bytes.count {
            precondition(bytes[index] == 0xFF, "lost in the marker stream")
            let marker = bytes[index + 1]
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if marker == 0xC0 || marker == 0xC2 {
                bytes[index + 5] = UInt8(height >> 8); bytes[index + 6] = UInt8(height & 0xFF)
                bytes[index + 7] = UInt8(width >> 8); bytes[index + 8] = UInt8(width & 0xFF)
                return Data(bytes)
            }
            index += 2 + length
        }
        preconditionFailure("no SOF0/SOF2 in the data")
    }

    /// The mean and largest absolute difference of the red, green and blue samples of two
    /// bitmaps of the same size.
    static func difference(_ a: Bitmap, _ b: Bitmap) -> (mean: Double, maximum: Int) {
        precondition(a.width == b.width && a.height == b.height)
        var total = 0, maximum = 0
        for i in 0..<a.pixels.count where i % 4 != 3 {
            let d = abs(Int(a.pixels[i]) - Int(b.pixels[i]))
            total += d
            maximum = max(maximum, d)
        }
        return (Double(total) / Double(max(1, a.width * a.height * 3)), maximum)
    }
}
#endif
