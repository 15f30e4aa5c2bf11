/// Just enough of an ICC profile's header and tag table to recognise sRGB.
///
/// Most photos carry an sRGB profile. Transforming sRGB to sRGB through lcms changes nothing
/// visible but costs more than the decode itself (a 12 MP JPEG: ~200 ms instead of ~70 ms), so
/// a profile that names itself sRGB is taken at its word.
struct ICCProfile {
    private let bytes: UnsafeRawBufferPointer

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Whether this is an RGB profile whose description has "sRGB" as a word (such as
    /// "sRGB IEC61966-2.1" or "sRGB built-in"; not "esRGB", "scRGB" or "Linear sRGB").
    var describesSRGB: Bool {
        guard string(at: 16, count: 4) == "RGB ", let description,
              !description.lowercased().contains("linear") else { return false }
        return description.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).contains("sRGB")
    }

    /// The `desc` tag's text: ASCII in version 2 profiles (`desc` type), UTF-16 in version 4
    /// (`mluc` type, first record).
    var description: String? {
        guard let tagCount = uint32(at: 128), tagCount < 1000 else { return nil }
        for index in 0..<Int(tagCount) {
            let entry = 132 + index * 12
            guard string(at: entry, count: 4) == "desc", let offset = uint32(at: entry + 4).map(Int.init) else { continue }
            switch string(at: offset, count: 4) {
            case "desc":
                guard let length = uint32(at: offset + 8).map(Int.init), length > 0 else { return nil }
                return string(at: offset + 12, count: min(length, 256))?.trimmingNUL()
            case "mluc":
                guard let records = uint32(at: offset + 8), records > 0,
                      let length = uint32(at: offset + 20), let start = uint32(at: offset + 24) else { return nil }
                var units: [UInt16] = []
                for index in 0..<Int(min(length, 512)) / 2 {
                    guard let unit = uint16(at: offset + Int(start) + index * 2) else { return nil }
                    units.append(unit)
                }
                return String(decoding: units, as: UTF16.self).trimmingNUL()
            default:
                return nil
            }
        }
        return nil
    }

    private func uint32(at offset: Int) -> UInt32? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        return (0..<4).reduce(0) { $0 << 8 | UInt32(bytes[offset + $1]) }
    }

    private func uint16(at offset: Int) -> UInt16? {
        guard offset >= 0, offset + 2 <= bytes.count else { return nil }
        return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    private func string(at offset: Int, count: Int) -> String? {
        guard offset >= 0, count >= 0, offset + count <= bytes.count else { return nil }
        return String(decoding: bytes[offset..<offset + count], as: UTF8.self)
    }
}

private extension String {
    func trimmingNUL() -> String {
        String(unicodeScalars.prefix { $0 != "\0" })
    }
}
