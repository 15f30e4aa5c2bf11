import CImageKernels
import ShashinCore

/// Refuses PNGs whose compressed ancillary chunks (`zTXt`, `iTXt`, `iCCP`) inflate to far more
/// than any real text or colour profile: a few hundred kilobytes that would make libpng inflate
/// hundreds of megabytes, once per read, before a single pixel.
///
/// It walks the chunk list (lengths and types only; `IDAT` is skipped, not inflated) and inflates
/// each compressed ancillary chunk into a 16 KB scratch buffer, counting, and stopping at the
/// limit: at most `perChunkLimit` bytes of output per chunk and `totalLimit` for the file, in
/// constant memory. A chunk that declares more bytes than the data holds is refused too: libpng
/// would allocate its declared length first. A broken stream is left for libpng to judge.
enum PNGChunkGuard {
    /// 4 MB: larger than real ICC profiles (typically 0.5–1 MB at most) and text.
    static let perChunkLimit = 4 << 20
    /// 8 MB over the whole file.
    static let totalLimit = 8 << 20

    /// Throws `.decodingFailed` when a compressed ancillary chunk inflates past the limits, or a
    /// chunk before `IEND` runs past the end of the data.
    static func check(_ bytes: UnsafeRawBufferPointer) throws(ImagePipelineError) {
        var offset = 8 // signature
        var inflatedSoFar = 0
        var isAnimated = false, seenIDAT = false
        while offset + 12 <= bytes.count {
            let length = Int(APNGStructure.uint32(bytes, offset))
            let typeBytes = UnsafeRawBufferPointer(rebasing: bytes[offset + 4..<offset + 8])
            let type = String(decoding: typeBytes, as: UTF8.self)
            let dataStart = offset + 8
            // libpng allocates an ancillary chunk's declared length before reading it: a 545-byte
            // file declaring a 1.9 GB `iTXt` chunk would ask for 1.9 GB.
            // A chunk running past the end of the data is truncated or hostile either way.
            // An APNG (an acTL before the first IDAT) cut inside a frame's chunks keeps the
            // frames before the cut (see `APNGStructure`): libpng never reads those chunks whole
            // in one allocation. In a still PNG they are chunks like any other.
            if isAnimated, length > bytes.count - dataStart - 4, type == "fdAT" || type == "fcTL" { return }
            guard length <= bytes.count - dataStart - 4 else {
                throw .decodingFailed(format: .png, reason: "while checking the PNG chunks: the \(printable(typeBytes)) chunk declares "
                                      + "\(length) bytes, more than the \(bytes.count - dataStart) left in the data: truncated or hostile")
            }
            if type == "IEND" { return }
            if type == "IDAT" { seenIDAT = true }
            if type == "acTL", !seenIDAT { isAnimated = true }
            let data = UnsafeRawBufferPointer(rebasing: bytes[dataStart..<dataStart + length])
            if let stream = compressedStream(of: type, in: data) {
                let budget = min(perChunkLimit, totalLimit - inflatedSoFar)
                let size = Int(shashin_zlib_inflated_size(stream.baseAddress, stream.count, budget))
                if size > budget {
                    throw .decodingFailed(format: .png, reason: "while checking the PNG chunks: the \(type) chunk inflates to more than "
                                          + "\(budget >> 20) MB (the limit for a PNG's compressed ancillary chunks): a decompression bomb")
                }
                inflatedSoFar += max(0, size)
            }
            offset = dataStart + length + 4
        }
    }

    /// The zlib stream inside a compressed ancillary chunk, or `nil` when `type` has none.
    static func compressedStream(of type: String, in data: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        func afterNul(from start: Int) -> Int? {
            guard start <= data.count, let nul = data[start...].firstIndex(of: 0) else { return nil }
            return nul + 1
        }
        switch type {
        case "zTXt", "iCCP":
            // keyword or profile name, NUL, compression method (0), stream
            guard let method = afterNul(from: 0), method + 1 <= data.count else { return nil }
            return UnsafeRawBufferPointer(rebasing: data[(method + 1)...])
        case "iTXt":
            // keyword, NUL, compression flag, method, language tag, NUL, translated keyword, NUL, text
            guard let flag = afterNul(from: 0), flag + 2 <= data.count, data[flag] == 1,
                  let translatedKeyword = afterNul(from: flag + 2), let text = afterNul(from: translatedKeyword) else { return nil }
            return UnsafeRawBufferPointer(rebasing: data[text...])
        default:
            return nil
        }
    }

    /// A chunk type for an error message: its four ASCII letters (`iTXt`) when every byte is one,
    /// otherwise every byte as two upper-case hex digits (`00 41 FF 0A`), so the text always says
    /// exactly which bytes the file holds.
    static func printable<Bytes: Collection<UInt8>>(_ type: Bytes) -> String {
        let isLetter = { (byte: UInt8) in (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
        guard type.allSatisfy(isLetter) else {
            return type.map { byte in
                let digits = String(byte, radix: 16, uppercase: true)
                return byte < 0x10 ? "0" + digits : digits
            }.joined(separator: " ")
        }
        return String(decoding: type, as: UTF8.self)
    }
}
