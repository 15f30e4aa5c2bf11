import Foundation

/// A video container, recognised from its first bytes: an ISO base media file's `ftyp` box and
/// its brands (MP4, M4V, QuickTime MOV), or a QuickTime file that begins with a `moov`, `mdat`
/// or `wide` atom instead. HEIC and AVIF use the same box with image brands: those are
/// `ImageFormat`s, never videos.
///
/// ```swift
/// VideoFormat(sniffing: data) == .mp4
/// ```
public enum VideoFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// MPEG-4 (`.mp4`; ftyp brands such as `isom`, `mp41`, `mp42`, `avc1`).
    case mp4
    /// QuickTime (`.mov`; ftyp brand `qt  `, or an older file that begins with a movie atom).
    case mov
    /// Apple's MPEG-4 video (`.m4v`; ftyp brand `M4V `).
    case m4v

    /// Brands that name each container, in the `ftyp` box's major brand or its compatible ones.
    private static let brands: [String: VideoFormat] = [
        "isom": .mp4, "iso2": .mp4, "iso3": .mp4, "iso4": .mp4, "iso5": .mp4, "iso6": .mp4,
        "mp41": .mp4, "mp42": .mp4, "avc1": .mp4, "dash": .mp4, "mmp4": .mp4, "MSNV": .mp4,
        "3gp4": .mp4, "3gp5": .mp4, "3gp6": .mp4, "3g2a": .mp4, "f4v ": .mp4, "XAVC": .mp4,
        "qt  ": .mov,
        "M4V ": .m4v, "M4VH": .m4v, "M4VP": .m4v,
    ]

    /// The most compatible brands read from one `ftyp` box: a box may list many, and only its
    /// first bytes are looked at.
    private static let maxCompatibleBrands = 16

    /// Sniffs the container from the first bytes; `nil` for anything else, an image in an ISO
    /// box included. Reads only what `data` holds: a box that claims to be longer is read as far
    /// as the bytes go.
    public init?(sniffing data: Data) {
        let bytes = [UInt8](data.prefix(16 + 4 * Self.maxCompatibleBrands))
        guard bytes.count >= 12 else { return nil }
        func fourCC(at offset: Int) -> String { String(decoding: bytes[offset..<offset + 4], as: UTF8.self) }
        switch fourCC(at: 4) {
        case "ftyp":
            if ImageFormat(sniffing: data) != nil { return nil }
            if let format = Self.brands[fourCC(at: 8)] { self = format; return }
            // The compatible brands follow the major brand and its version, to the box's end.
            let boxSize = bytes[0..<4].reduce(0) { $0 << 8 | Int($1) }
            let end = min(bytes.count, boxSize >= 16 ? boxSize : bytes.count)
            var offset = 16
            while offset + 4 <= end {
                if let format = Self.brands[fourCC(at: offset)] { self = format; return }
                offset += 4
            }
            return nil
        case "moov", "mdat", "wide":
            self = .mov
        default:
            return nil
        }
    }

    /// The file extension AVFoundation reads the container by: `mp4`, `mov` or `m4v`.
    public var fileExtension: String { rawValue }

    /// The container's usual name, such as `mp4`.
    public var description: String { rawValue }
}
