import Foundation

/// A Digest authentication hash (RFC 7616 §3.2): the two this library answers.
enum DigestAlgorithm: String, Sendable, Hashable {
    case md5 = "MD5"
    case sha256 = "SHA-256"

    /// The algorithm a challenge's `algorithm` names: none means MD5 (RFC 7616 §3.3); `nil` for
    /// one not answered (`-sess` variants, SHA-512-256, unknown names).
    init?(_ name: String?) {
        switch name?.uppercased() {
        case nil, "MD5": self = .md5
        case "SHA-256": self = .sha256
        default: return nil
        }
    }

    /// The lower-case hex digest of the UTF-8 bytes of `text`.
    func hash(_ text: String) -> String {
        let digest: [UInt8] = switch self {
        case .md5: MD5.digest(Array(text.utf8))
        case .sha256: Array(text.utf8).withUnsafeBytes { SHA256.digest($0) }
        }
        return Hex.lowercase(digest)
    }

}
