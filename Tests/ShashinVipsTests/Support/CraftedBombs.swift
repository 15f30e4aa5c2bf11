// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import CZlib
import Foundation
import ShashinCore
import ShashinVips

/// Decompression bombs: small files that declare (or inflate to) far more than they hold.
enum CraftedBombs {
    /// A real small JPEG whose frame header (SOF) is patched to declare `width` × `height`.
    static func jpeg(width: UInt16, height: UInt16) throws -> Data {
        var bytes = [UInt8](try VipsImageEncoder().encodeBitmap(TestImages.gradient(width: 16, height: 16), as: .jpeg, quality: 0.8))
        guard let sof = (0..<bytes.count - 9).first(where: { bytes[$0] == 0xFF && (bytes[$0 + 1] == 0xC0 || bytes[$0 + 1] == 0xC2) }) else {
            fatalError("no SOF marker")
        }
        bytes[sof + 5] = UInt8(height >> 8); bytes[sof + 6] = UInt8(height & 0xFF)
        bytes[sof + 7] = UInt8(width >> 8); bytes[sof + 8] = UInt8(width & 0xFF)
        return Data(bytes)
    }

    /// A WebP whose VP8X canvas is `width` × `height`, holding one 16×12 frame; `animated` marks
    /// it as an animation (whose canvas may be larger than its frames).
    static func webp(canvasWidth width: UInt32, height: UInt32, animated: Bool) throws -> Data {
        let small = try VipsImageEncoder().encodeBitmap(TestImages.gradient(width: 16, height: 12), options: .webp(lossless: true))
        let image = riffChunk(named: "VP8L", in: [UInt8](small))
        var chunks = riff("VP8X", [animated ? 0x02 : 0x00, 0, 0, 0] + le24(width - 1) + le24(height - 1))
        if animated {
            chunks += riff("ANIM", [0, 0, 0, 0, 0, 0])
            chunks += riff("ANMF", le24(0) + le24(0) + le24(15) + le24(11) + le24(100) + [0] + image)
        } else {
            chunks += image
        }
        let body = Array("WEBP".utf8) + chunks
        return Data(Array("RIFF".utf8) + le32(UInt32(body.count)) + body)
    }

    /// A GIF with a `screenWidth` × `screenHeight` logical screen and one frame of
    /// `frameWidth` × `frameHeight` whose pixel data is a single LZW code (the rest is missing).
    static func gif(screenWidth: UInt16, screenHeight: UInt16, frameWidth: UInt16, frameHeight: UInt16) -> Data {
        var gif: [UInt8] = Array("GIF89a".utf8) + le16(screenWidth) + le16(screenHeight) + [0xF1, 0, 0]
        gif += [255, 0, 0, 0, 0, 255, 0, 255, 0, 255, 255, 255]
        gif += [0x2C] + le16(0) + le16(0) + le16(frameWidth) + le16(frameHeight) + [0x00]
        gif += [0x02, 0x02, 0x4C, 0x01, 0x00, 0x3B]
        return Data(gif)
    }

    /// A valid 16×16 grey PNG with one ancillary chunk before its pixels: `zTXt`, `iCCP` or `iTXt`
    /// whose compressed payload inflates to `inflatedBytes` zero bytes.
    static func png(withCompressedChunk type: String, inflatingTo inflatedBytes: Int) -> Data {
        let compressed = deflate([UInt8](repeating: 0, count: inflatedBytes))
        let payload: [UInt8]
        switch type {
        case "zTXt": payload = Array("Comment".utf8) + [0, 0] + compressed
        case "iCCP": payload = Array("bomb".utf8) + [0, 0] + compressed
        case "iTXt": payload = Array("Comment".utf8) + [0, 1, 0] + Array("en".utf8) + [0] + [0] + compressed
        default: preconditionFailure("not a compressed chunk type")
        }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += pngChunk("IHDR", be32(16) + be32(16) + [8, 0, 0, 0, 0])
        png += pngChunk(type, payload)
        png += pngChunk("IDAT", deflate([UInt8]((0..<16).flatMap { _ in [0] + [UInt8](repeating: 128, count: 16) })))
        png += pngChunk("IEND", [])
        return Data(png)
    }

    // MARK: Bytes

    private static func deflate(_ bytes: [UInt8]) -> [UInt8] {
        var length = compressBound(uLong(bytes.count))
        var out = [UInt8](repeating: 0, count: Int(length))
        let status = compress2(&out, &length, bytes, uLong(bytes.count), 9)
        precondition(status == Z_OK)
        return Array(out.prefix(Int(length)))
    }

    private static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return be32(UInt32(data.count)) + typed + be32(UInt32(crc32(0, typed, uInt(typed.count))))
    }

    private static func riff(_ type: String, _ data: [UInt8]) -> [UInt8] {
        Array(type.utf8) + le32(UInt32(data.count)) + data + (data.count % 2 == 1 ? [0] : [])
    }

    /// The whole chunk (header included) named `type` in a RIFF file.
    private static func riffChunk(named type: String, in file: [UInt8]) -> [UInt8] {
        var offset = 12
        while offset + 8 <= file.count {
            let size = Int(file[offset + 4]) | Int(file[offset + 5]) << 8 | Int(file[offset + 6]) << 16 | Int(file[offset + 7]) << 24
            if Array(file[offset..<offset + 4]) == Array(type.utf8) { return Array(file[offset..<offset + 8 + size + size % 2]) }
            offset += 8 + size + size % 2
        }
        fatalError("no \(type) chunk")
    }

    private static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    private static func le24(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF)] }
    private static func le32(_ v: UInt32) -> [UInt8] { le24(v) + [UInt8(v >> 24)] }
    private static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
}
#endif
