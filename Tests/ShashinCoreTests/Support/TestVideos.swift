import Foundation

/// The first bytes of video files, as their containers begin: enough for sniffing, no frames.
enum TestVideos {
    /// An ISO base media `ftyp` box with `major` brand and `compatible` ones, then an empty `mdat`.
    static func ftyp(_ major: String, compatible: [String] = [], boxSize: UInt32? = nil) -> Data {
        let brands = compatible.flatMap { Array($0.utf8) }
        let size = boxSize ?? UInt32(16 + brands.count)
        var bytes = withUnsafeBytes(of: size.bigEndian, Array.init)
        bytes += Array("ftyp".utf8) + Array(major.utf8) + [0, 0, 2, 0] + brands
        bytes += [0, 0, 0, 8] + Array("mdat".utf8)
        return Data(bytes)
    }

    /// An MP4's first bytes (`isom`, compatible with `mp41`).
    static let mp4 = ftyp("isom", compatible: ["isom", "mp41"])
}
