// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ShashinCore

/// Reads netpbm PAM (`P7`) files with 8-bit RGB or RGBA tuples, the format of the expected
/// pixels (PngSuite, converted by `scripts/compact-pngsuite-expected.py`) and of libwebp's
/// reference renderings.
enum PAM {
    struct FormatError: Error, CustomStringConvertible {
        let description: String
    }

    /// The image in `data`, as RGBA (RGB gets opaque alpha).
    static func bitmap(_ data: Data) throws -> Bitmap {
        let bytes = [UInt8](data)
        guard let end = find(Array("ENDHDR\n".utf8), in: bytes) else { throw FormatError(description: "no ENDHDR") }
        let header = String(decoding: bytes[..<end], as: UTF8.self)
        guard header.hasPrefix("P7\n") else { throw FormatError(description: "not P7") }
        var fields: [String: String] = [:]
        for line in header.split(separator: "\n").dropFirst() {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        guard let width = fields["WIDTH"].flatMap({ Int($0) }), let height = fields["HEIGHT"].flatMap({ Int($0) }),
              let depth = fields["DEPTH"].flatMap({ Int($0) }), [3, 4].contains(depth), fields["MAXVAL"] == "255" else {
            throw FormatError(description: "unsupported header: \(fields)")
        }
        let body = bytes[(end + 7)...]
        guard body.count == width * height * depth else { throw FormatError(description: "\(body.count) bytes for \(width)x\(height)x\(depth)") }
        if depth == 4 { return Bitmap(width: width, height: height, pixels: Array(body)) }
        var rgba = [UInt8]()
        rgba.reserveCapacity(width * height * 4)
        var index = body.startIndex
        while index < body.endIndex {
            rgba.append(contentsOf: body[index..<index + 3])
            rgba.append(255)
            index += 3
        }
        return Bitmap(width: width, height: height, pixels: rgba)
    }

    /// `bitmap` as the PAM file `dwebp -pam` writes (always RGBA), whose md5 libwebp's tests list.
    static func encode(_ bitmap: Bitmap) -> [UInt8] {
        Array("P7\nWIDTH \(bitmap.width)\nHEIGHT \(bitmap.height)\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n".utf8) + bitmap.pixels
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }
}
#endif
