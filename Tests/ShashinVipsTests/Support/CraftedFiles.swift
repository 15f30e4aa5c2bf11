// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ImageServer

/// Files built byte by byte, for what an encoder will not produce.
enum CraftedFiles {
    /// A valid 8-bit greyscale PNG *header* declaring `width` × `height`, with a tiny IDAT:
    /// a decompression bomb's shape (the pixels it would need are never there).
    static func pngHeader(width: UInt32, height: UInt32) -> Data {
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", bigEndian(width) + bigEndian(height) + [8, 0, 0, 0, 0])
        // zlib stream with one stored (uncompressed) deflate block holding one filter byte.
        let raw: [UInt8] = [0]
        png += chunk("IDAT", [0x78, 0x01, 0x01, 0x01, 0x00, 0xFE, 0xFF] + raw + bigEndian(adler32(raw)))
        png += chunk("IEND", [])
        return Data(png)
    }

    /// `jpeg` with an EXIF APP1 segment carrying `orientation` (1...8) right after SOI.
    static func jpeg(_ jpeg: Data, withOrientation orientation: UInt16) -> Data {
        var tiff: [UInt8] = Array("MM".utf8) + [0x00, 0x2A] + bigEndian(UInt32(8))
        tiff += bigEndian16(1)                                        // one IFD entry
        tiff += bigEndian16(0x0112) + bigEndian16(3) + bigEndian(UInt32(1)) // Orientation, SHORT, 1
        tiff += bigEndian16(orientation) + [0, 0]
        tiff += bigEndian(UInt32(0))                                  // no next IFD
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let segment: [UInt8] = [0xFF, 0xE1] + bigEndian16(UInt16(payload.count + 2)) + payload
        var bytes = [UInt8](jpeg)
        precondition(bytes.starts(with: [0xFF, 0xD8]), "not a JPEG")
        bytes.insert(contentsOf: segment, at: 2)
        return Data(bytes)
    }

    /// A GIF89a of `frames` (each `width * height` indices into a 4-colour palette), with a
    /// NETSCAPE loop block: an animation whose first frame differs from the rest.
    static func animatedGIF(width: UInt16, height: UInt16, palette: [(UInt8, UInt8, UInt8)], frames: [[UInt8]]) -> Data {
        regionGIF(width: width, height: height, palette: palette,
                  frames: frames.map { GIFFrame(x: 0, y: 0, width: width, height: height, indices: $0, disposal: 1) })
    }

    /// One frame of `regionGIF`: `indices` (`width * height`, into the 4-colour palette) drawn at
    /// (`x`, `y`) of the canvas, then disposed of by GIF's `disposal` method (1: left in place,
    /// 2: restored to the background, 3: restored to what was there before), with
    /// `transparentIndex` (if any) leaving the canvas beneath showing; shown `centiseconds`.
    struct GIFFrame {
        var x: UInt16, y: UInt16, width: UInt16, height: UInt16
        var indices: [UInt8]
        var disposal: UInt8
        var transparentIndex: UInt8? = nil
        var centiseconds: UInt16 = 10
    }

    /// A GIF89a whose frames each update a region of the canvas, with a NETSCAPE block looping
    /// forever: how encoders write animations where little changes, which the decoder composes.
    static func regionGIF(width: UInt16, height: UInt16, palette: [(UInt8, UInt8, UInt8)], frames: [GIFFrame]) -> Data {
        AnimatedGIFWriter(width: Int(width), height: Int(height), palette: palette).data(frames.map {
            AnimatedGIFWriter.Frame(x: Int($0.x), y: Int($0.y), width: Int($0.width), height: Int($0.height), indices: $0.indices,
                                    centiseconds: $0.centiseconds, disposal: $0.disposal, transparentIndex: $0.transparentIndex)
        })
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(AnimatedPNGWriter.crc32(typed))
    }

    private static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        return b << 16 | a
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32($0))) } }
    private static func bigEndian16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
}
#endif
