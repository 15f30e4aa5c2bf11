// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import CZlib
import Foundation
import ShashinCore
import ShashinVips

/// The shapes of issue 13 whose decoding memory the pixel limit does not bound: all black,
/// so they are small files, made here byte by byte.
enum BudgetShapes {
    /// A valid all-black PNG: `bitDepth` 8 or 16, `colourType` 0 (grey), 2 (RGB) or 6 (RGBA),
    /// Adam7-interlaced when asked. Its pixel data is deflated as it is counted, never held.
    static func png(width: Int, height: Int, bitDepth: UInt8, colourType: UInt8, interlaced: Bool) -> Data {
        let channels = [0: 1, 2: 3, 4: 2, 6: 4][Int(colourType)] ?? 1
        let bitsPerPixel = channels * Int(bitDepth)
        let passes: [(x: Int, y: Int, dx: Int, dy: Int)] = interlaced
            ? [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
            : [(0, 0, 1, 1)]
        var rawCount = 0
        for pass in passes {
            let columns = width > pass.x ? (width - pass.x + pass.dx - 1) / pass.dx : 0
            let rows = height > pass.y ? (height - pass.y + pass.dy - 1) / pass.dy : 0
            if columns > 0 { rawCount += rows * (1 + (columns * bitsPerPixel + 7) / 8) }
        }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", be32(UInt32(width)) + be32(UInt32(height)) + [bitDepth, colourType, 0, 0, interlaced ? 1 : 0])
        png += chunk("IDAT", deflatedZeros(count: rawCount))
        png += chunk("IEND", [])
        return Data(png)
    }

    /// A real small JPEG (YCbCr, no profile) whose frame header is patched to declare a
    /// progressive (SOF2) image of `width` × `height`: the header every estimate reads, with
    /// scans that could never fill it, so it must be refused before any pixel is decoded.
    static func progressiveJPEGHeader(width: UInt16, height: UInt16) throws -> Data {
        var bytes = [UInt8](try CraftedBombs.jpeg(width: width, height: height))
        guard let sof = (0..<bytes.count - 1).first(where: { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 }) else {
            fatalError("no SOF0 marker")
        }
        bytes[sof + 1] = 0xC2
        return Data(bytes)
    }

    private static func deflatedZeros(count: Int) -> [UInt8] {
        var stream = z_stream()
        precondition(deflateInit_(&stream, 1, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK)
        defer { deflateEnd(&stream) }
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        var output = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var remaining = count
        repeat {
            let length = min(remaining, zeros.count)
            remaining -= length
            let flush = remaining == 0 ? Z_FINISH : Z_NO_FLUSH
            zeros.withUnsafeBufferPointer { input in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = UInt32(length)
                repeat {
                    let produced = buffer.withUnsafeMutableBufferPointer { out -> Int in
                        stream.next_out = out.baseAddress
                        stream.avail_out = UInt32(out.count)
                        _ = deflate(&stream, flush)
                        return out.count - Int(stream.avail_out)
                    }
                    output += buffer[0..<produced]
                } while stream.avail_out == 0 || (flush == Z_FINISH && stream.avail_in > 0)
            }
        } while remaining > 0
        return output
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return be32(UInt32(data.count)) + typed + be32(UInt32(crc32(0, typed, uInt(typed.count))))
    }

    private static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
}
#endif
