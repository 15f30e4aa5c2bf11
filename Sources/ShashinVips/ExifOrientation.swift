/// Reads the EXIF orientation tag (0x0112) from a JPEG's APP1 "Exif" payload, checking every
/// offset against the payload's bounds.
///
/// libvips reads orientation through libexif, which looks for the tag in IFD0 first, then in
/// IFD1 (the thumbnail's directory). This reader gives an answer only where it is sure to be
/// libexif's: the first orientation entry in IFD0, or 1 when neither IFD0 nor IFD1 has one.
/// Anything else — a damaged structure, a tag of an unexpected type, a value outside 1...8
/// (which libvips clamps), a tag only in IFD1 — gives `nil`, and the caller leaves the image to
/// libvips.
enum ExifOrientation {
    /// The orientation (1...8) that `payload` (the APP1 segment's data, starting "Exif\0\0")
    /// declares, 1 when it declares none, `nil` when it cannot be read exactly.
    static func read(_ payload: UnsafeRawBufferPointer) -> Int? {
        let signature: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0] // "Exif\0\0"
        guard payload.count >= signature.count + 8, payload.prefix(signature.count).elementsEqual(signature) else { return nil }
        let tiff = TIFFReader(bytes: UnsafeRawBufferPointer(rebasing: payload[signature.count...]))
        guard let tiff, tiff.uint16(at: 2) == 42, let first = tiff.uint32(at: 4) else { return nil }
        switch tiff.orientation(inDirectoryAt: Int(first)) {
        case .malformed:
            return nil
        case .found(let value):
            return (1...8).contains(value) ? value : nil
        case .absent(let next):
            guard next != 0 else { return 1 }
            if case .absent = tiff.orientation(inDirectoryAt: next) { return 1 }
            return nil
        }
    }
}

/// Offsets and integers in a TIFF structure, in its byte order.
private struct TIFFReader {
    let bytes: UnsafeRawBufferPointer
    let bigEndian: Bool

    /// `nil` unless `bytes` starts with a byte-order mark ("II" or "MM").
    init?(bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 2 else { return nil }
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): bigEndian = false
        case (0x4D, 0x4D): bigEndian = true
        default: return nil
        }
        self.bytes = bytes
    }

    func uint16(at offset: Int) -> Int? {
        guard offset >= 0, offset <= bytes.count - 2 else { return nil }
        let a = Int(bytes[offset]), b = Int(bytes[offset + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    func uint32(at offset: Int) -> Int? {
        guard let high = uint16(at: bigEndian ? offset : offset + 2),
              let low = uint16(at: bigEndian ? offset + 2 : offset) else { return nil }
        return high << 16 | low
    }

    enum Lookup {
        /// The directory's first orientation entry, a SHORT with one value.
        case found(Int)
        /// No orientation entry; `next` is the offset of the next directory (0: none).
        case absent(next: Int)
        /// The directory runs outside the data, or its orientation entry is not one SHORT.
        case malformed
    }

    /// Looks for the orientation tag in the image file directory at `offset`.
    func orientation(inDirectoryAt offset: Int) -> Lookup {
        guard offset >= 8, let count = uint16(at: offset) else { return .malformed }
        let entries = offset + 2
        guard let next = uint32(at: entries + count * 12) else { return .malformed }
        for index in 0..<count {
            let entry = entries + index * 12
            guard uint16(at: entry) == 0x0112 else { continue }
            guard uint16(at: entry + 2) == 3, uint32(at: entry + 4) == 1, let value = uint16(at: entry + 8) else {
                return .malformed
            }
            return .found(value)
        }
        return .absent(next: next)
    }
}
