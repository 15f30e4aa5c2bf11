import Foundation

/// The `Authorization: Digest` answer to one challenge (RFC 7616 §3.4), with `qop=auth` when
/// the server offers it (the RFC 2069 form when it names no `qop`).
struct DigestAuthorization: Sendable {
    var algorithm: DigestAlgorithm
    var realm: String
    var nonce: String
    var opaque: String?
    /// Whether the challenge offered `qop=auth` (else it named no `qop`).
    var usesQop: Bool

    /// The `response` value, lower-case hex (§3.4.1).
    static func response(_ algorithm: DigestAlgorithm, user: String, realm: String, password: String, method: String,
                         uri: String, nonce: String, nc: String, cnonce: String, usesQop: Bool = true) -> String {
        let ha1 = algorithm.hash("\(user):\(realm):\(password)")
        let ha2 = algorithm.hash("\(method):\(uri)")
        if usesQop { return algorithm.hash("\(ha1):\(nonce):\(nc):\(cnonce):auth:\(ha2)") }
        return algorithm.hash("\(ha1):\(nonce):\(ha2)")
    }

    /// The field value for a request of `method` on `uri` (the request target: path and query),
    /// with nonce count `count` and client nonce `cnonce`.
    func field(_ credential: Credential, method: String, uri: String, count: UInt32, cnonce: String) -> String {
        let nc = String(format: "%08x", count)
        let response = Self.response(algorithm, user: credential.user, realm: realm, password: credential.password,
                                     method: method, uri: uri, nonce: nonce, nc: nc, cnonce: cnonce, usesQop: usesQop)
        var parts = [
            "username=\(Self.quoted(credential.user))", "realm=\(Self.quoted(realm))", "uri=\(Self.quoted(uri))",
            "algorithm=\(algorithm.rawValue)", "nonce=\(Self.quoted(nonce))",
        ]
        if usesQop { parts += ["nc=\(nc)", "cnonce=\(Self.quoted(cnonce))", "qop=auth"] }
        parts.append("response=\(Self.quoted(response))")
        if let opaque { parts.append("opaque=\(Self.quoted(opaque))") }
        return "Digest " + parts.joined(separator: ", ")
    }

    /// The request target a Digest `uri` names: the URL's path (percent-encoded as sent, `/` when
    /// empty) and query.
    static func requestTarget(of url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        var path = components?.percentEncodedPath ?? url.path
        if path.isEmpty { path = "/" }
        if let query = components?.percentEncodedQuery { path += "?" + query }
        return path
    }

    /// A fresh client nonce: 16 random bytes in hex.
    static func makeClientNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return Hex.lowercase((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// `value` as a quoted string (RFC 9110 §5.6.4).
    static func quoted(_ value: String) -> String {
        "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
