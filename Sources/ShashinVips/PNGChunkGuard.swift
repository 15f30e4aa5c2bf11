import CVips
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
        while offset + 12 <= bytes.count {
            let length = Int(readUInt32(bytes, at: offset))
            let type = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset + 4..<offset + 8]), as: UTF8.self)
            let dataStart = offset + 8
            // libpng allocates an ancillary chunk's declared length before reading it: a 545-byte
            // file declaring a 1.9 GB `iTXt` chunk asked for 1.9 GB (found by the decode fuzzer).
            // A chunk running past the end of the data is truncated or hostile either way.
            guard length <= bytes.count - dataStart - 4 else {
                throw .decodingFailed(format: .png, reason: "The \(printable(type)) chunk declares \(length) bytes, "
                                      + "more than the \(bytes.count - dataStart) left in the data: truncated or hostile")
            }
            if type == "IEND" { return }
            let data = UnsafeRawBufferPointer(rebasing: bytes[dataStart..<dataStart + length])
            if let stream = compressedStream(of: type, in: data) {
                let budget = min(perChunkLimit, totalLimit - inflatedSoFar)
                let size = Int(shashin_zlib_inflated_size(stream.baseAddress, stream.count, budget))
                if size > budget {
                    throw .decodingFailed(format: .png, reason: "The \(type) chunk inflates to more than \(budget >> 20) MB "
                                          + "(the limit for a PNG's compressed ancillary chunks): a decompression bomb")
                }
                inflatedSoFar += max(0, size)
            }
            offset = dataStart + length + 4
        }
    }

    /// The zlib stream inside a compressed ancillary chunk, or `nil` when `type` has none.
    private static func compressedStream(of type: String, in data: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
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

    /// A chunk type for an error message: its letters, or its bytes in hex when they are not letters.
    private static func printable(_ type: String) -> String {
        type.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) || ("a"..."z").contains($0) }
            ? type : type.utf8.map { String($0, radix: 16) }.joined(separator: " ")
    }

    private static func readUInt32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 << 8 | UInt32(bytes[offset + $1]) }
    }
}
