import Foundation

/// Just enough of JPEG's marker structure to tell whether a file is whole.
package enum JPEGStructure {
    /// Whether `data` is a JPEG whose markers lead, through every scan, to the end-of-image
    /// marker (`FF D9`); bytes after it are allowed, as decoders ignore them. A file cut anywhere
    /// before that marker gives `false`: the check ImageIO's decoder makes so that a truncated
    /// JPEG fails on Apple platforms as libjpeg's "premature end of file" makes it fail on Linux.
    ///
    /// Segments are skipped by their lengths (an EXIF thumbnail's own end marker is inside one);
    /// scan data is read up to the first byte pair that is a marker (`FF 00` is a stuffed byte,
    /// `FF D0`–`FF D7` are restart markers, repeated `FF`s are fill).
    package static func reachesEndOfImage(_ data: Data) -> Bool {
        data.withUnsafeBytes { reachesEndOfImage(Array($0.bindMemory(to: UInt8.self))) }
    }

    private static func reachesEndOfImage(_ bytes: [UInt8]) -> Bool {
        let count = bytes.count
        guard count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return false }
        var index = 2
        while index < count {
            guard bytes[index] == 0xFF else { return false }
            while index < count && bytes[index] == 0xFF { index += 1 }
            guard index < count else { return false }
            let marker = bytes[index]
            index += 1
            switch marker {
            case 0xD9:
                return true
            case 0x01, 0xD0...0xD7:
                continue // standalone markers: no length
            case 0x00, 0xD8:
                return false // a stuffed byte or a second start-of-image outside a scan
            default:
                guard index + 1 < count else { return false }
                let length = Int(bytes[index]) << 8 | Int(bytes[index + 1])
                guard length >= 2, length <= count - index else { return false }
                index += length
                if marker == 0xDA { index = endOfScanData(bytes, from: index) }
            }
        }
        return false
    }

    /// The index of the first marker after scan data starting at `start`, or `bytes.count`.
    private static func endOfScanData(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] == 0xFF {
                let next = bytes[index + 1]
                if next == 0x00 || (0xD0...0xD7).contains(next) {
                    index += 2
                    continue
                }
                if next != 0xFF { return index }
            }
            index += 1
        }
        return bytes.count
    }
}
