import Foundation

/// An image file format, recognised from the first bytes of the data (never from the URL or
/// the `Content-Type`, which servers often get wrong).
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case jpeg, png, gif, webp, heic, avif, bmp, tiff

    /// Sniffs the format from magic bytes; `nil` when the data is none of the known formats.
    ///
    /// ```swift
    /// ImageFormat(sniffing: data) == .png
    /// ```
    public init?(sniffing data: Data) {
        let bytes = [UInt8](data.prefix(32))
        func starts(_ magic: some Collection<UInt8>, at offset: Int = 0) -> Bool {
            bytes.count >= offset + magic.count && bytes[offset...].starts(with: magic)
        }
        if starts([0xFF, 0xD8, 0xFF]) { self = .jpeg }
        else if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { self = .png }
        else if starts("GIF87a".utf8) || starts("GIF89a".utf8) { self = .gif }
        else if starts("RIFF".utf8) && starts("WEBP".utf8, at: 8) { self = .webp }
        else if starts("ftyp".utf8, at: 4) {
            let brand = bytes.count >= 12 ? String(decoding: bytes[8..<12], as: UTF8.self) : ""
            switch brand {
            case "avif", "avis": self = .avif
            case "heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1": self = .heic
            default: return nil
            }
        }
        else if starts("BM".utf8) { self = .bmp }
        else if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { self = .tiff }
        else { return nil }
    }

    /// The format's usual name, such as `jpeg`.
    public var description: String { rawValue }
}
