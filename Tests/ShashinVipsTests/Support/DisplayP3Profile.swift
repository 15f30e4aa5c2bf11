// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation

/// A Display P3 ICC profile written from its definition, so tests need no profile file: version
/// 4, display class, RGB to XYZ through a matrix and curves. The primaries (DCI-P3's: red 0.680,
/// 0.320; green 0.265, 0.690; blue 0.150, 0.060) and the D65 white give the RGB → XYZ matrix,
/// adapted to the D50 the profile connection space uses by the Bradford transform (kept in the
/// `chad` tag); the curves are sRGB's (a parametric curve of type 3).
enum DisplayP3Profile {
    /// The profile; `description` is its `desc` text (change it for a profile with other bytes
    /// and the same meaning).
    static func bytes(description: String = "Display P3", colourSpace: String = "RGB ") -> [UInt8] {
        let adaptation = bradford(from: d65, to: d50)
        let columns = multiply(adaptation, rgbToXYZ)
        var tags: [(signature: String, data: [UInt8])] = [
            ("desc", mluc(description)),
            ("wtpt", xyz(d50)),
            ("rXYZ", xyz((columns[0][0], columns[1][0], columns[2][0]))),
            ("gXYZ", xyz((columns[0][1], columns[1][1], columns[2][1]))),
            ("bXYZ", xyz((columns[0][2], columns[1][2], columns[2][2]))),
            ("chad", Array("sf32".utf8) + [0, 0, 0, 0] + adaptation.flatMap { $0.flatMap(s15Fixed16) }),
        ]
        // The sRGB curve: Y = (aX + b)^g for X ≥ d, else cX.
        let curve = Array("para".utf8) + [0, 0, 0, 0, 0, 3, 0, 0]
            + [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045].flatMap(s15Fixed16)
        tags += [("rTRC", curve), ("gTRC", curve), ("bTRC", curve)]

        let tableSize = 4 + 12 * tags.count
        var offset = 128 + tableSize
        var table = be32(UInt32(tags.count))
        var data: [UInt8] = []
        for tag in tags {
            table += Array(tag.signature.utf8) + be32(UInt32(offset)) + be32(UInt32(tag.data.count))
            let padded = tag.data + [UInt8](repeating: 0, count: (4 - tag.data.count % 4) % 4)
            data += padded
            offset += padded.count
        }
        var header = [UInt8](repeating: 0, count: 128)
        func put(_ bytes: [UInt8], at index: Int) { header.replaceSubrange(index..<index + bytes.count, with: bytes) }
        put(be32(UInt32(offset)), at: 0)
        put([4, 0x30, 0, 0], at: 8)                          // version 4.3
        put(Array("mntr".utf8), at: 12)                      // display device
        put(Array(colourSpace.utf8), at: 16)
        put(Array("XYZ ".utf8), at: 20)                      // connection space
        put([2026, 1, 1, 0, 0, 0].flatMap { be16(UInt16($0)) }, at: 24)
        put(Array("acsp".utf8), at: 36)
        put([d50.x, d50.y, d50.z].flatMap(s15Fixed16), at: 68) // the connection space's illuminant
        return header + table + data
    }

    typealias XYZ = (x: Double, y: Double, z: Double)
    static let d65: XYZ = (0.3127 / 0.3290, 1, (1 - 0.3127 - 0.3290) / 0.3290)
    static let d50: XYZ = (0.9642, 1, 0.8249)

    /// Linear RGB → XYZ (D65) from the primaries' chromaticities: each primary's XYZ direction,
    /// scaled so that R = G = B = 1 gives the white.
    static var rgbToXYZ: [[Double]] {
        let primaries = [(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)]
        let directions = transpose(primaries.map { x, y in [x / y, 1, (1 - x - y) / y] })
        let scale = multiply(invert(directions), [[d65.x], [d65.y], [d65.z]]).map { $0[0] }
        return directions.map { row in (0..<3).map { row[$0] * scale[$0] } }
    }

    /// The Bradford chromatic adaptation from white `source` to white `destination`.
    static func bradford(from source: XYZ, to destination: XYZ) -> [[Double]] {
        let cone: [[Double]] = [[0.8951, 0.2664, -0.1614], [-0.7502, 1.7135, 0.0367], [0.0389, -0.0685, 1.0296]]
        let s = multiply(cone, [[source.x], [source.y], [source.z]]).map { $0[0] }
        let d = multiply(cone, [[destination.x], [destination.y], [destination.z]]).map { $0[0] }
        let gains = (0..<3).map { row in (0..<3).map { row == $0 ? d[row] / s[row] : 0 } }
        return multiply(invert(cone), multiply(gains, cone))
    }

    static func multiply(_ a: [[Double]], _ b: [[Double]]) -> [[Double]] {
        a.map { row in (0..<b[0].count).map { column in (0..<b.count).reduce(0) { $0 + row[$1] * b[$1][column] } } }
    }

    static func transpose(_ m: [[Double]]) -> [[Double]] {
        (0..<m[0].count).map { column in m.map { $0[column] } }
    }

    /// The inverse of a 3 × 3 matrix (adjugate over determinant).
    static func invert(_ m: [[Double]]) -> [[Double]] {
        func at(_ r: Int, _ c: Int) -> Double { m[r % 3][c % 3] }
        let cofactors = (0..<3).map { r in (0..<3).map { c in at(r + 1, c + 1) * at(r + 2, c + 2) - at(r + 1, c + 2) * at(r + 2, c + 1) } }
        let determinant = (0..<3).reduce(0) { $0 + m[0][$1] * cofactors[0][$1] }
        return transpose(cofactors).map { $0.map { $0 / determinant } }
    }

    static func s15Fixed16(_ value: Double) -> [UInt8] {
        be32(UInt32(bitPattern: Int32((value * 65536).rounded())))
    }

    static func xyz(_ value: XYZ) -> [UInt8] {
        Array("XYZ ".utf8) + [0, 0, 0, 0] + [value.x, value.y, value.z].flatMap(s15Fixed16)
    }

    /// A `mluc` tag with one English record.
    static func mluc(_ text: String) -> [UInt8] {
        let utf16 = text.utf16.flatMap(be16)
        return Array("mluc".utf8) + [0, 0, 0, 0] + be32(1) + be32(12) + Array("enUS".utf8) + be32(UInt32(utf16.count)) + be32(28) + utf16
    }

    static func be32(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
    static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
}
#endif
