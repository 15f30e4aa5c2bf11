import Foundation

/// One challenge of a `WWW-Authenticate` field (RFC 9110 §11.6.1): a scheme, then either a
/// token68 or a list of `name=value` parameters whose values are tokens or quoted strings.
///
/// ```swift
/// let challenges = AuthenticationChallenge.parse(#"Basic realm="a", Digest realm="b", nonce="n", algorithm=SHA-256"#)
/// // [Basic realm=a, Digest realm=b nonce=n algorithm=SHA-256]
/// ```
public struct AuthenticationChallenge: Sendable, Hashable {
    /// The scheme, lowercased (`basic`, `digest`, ...).
    public var scheme: String
    /// The parameters, by lowercased name, quoted strings unescaped.
    public var parameters: [String: String]
    /// The token68 form (`Negotiate abc==`), when the challenge has one instead of parameters.
    public var token68: String?

    /// A challenge; see the properties.
    public init(scheme: String, parameters: [String: String] = [:], token68: String? = nil) {
        self.scheme = scheme.lowercased()
        self.parameters = parameters
        self.token68 = token68
    }

    /// The `realm` parameter.
    public var realm: String? { parameters["realm"] }

    /// The challenges of one or more `WWW-Authenticate` values (Foundation joins repeated fields
    /// with commas, which the grammar allows). Parsing stops at the first malformed part; the
    /// challenges before it are kept, the one it was in is dropped.
    public static func parse(_ field: String) -> [AuthenticationChallenge] {
        var parser = ChallengeParser(Array(field.utf8))
        return parser.challenges()
    }

    /// The one this library answers best, strongest first: Digest SHA-256, Digest MD5, Basic.
    /// A Digest challenge needs a `nonce` and, when it names `qop`, must offer `auth`; others
    /// (another algorithm, `-sess` variants, `auth-int` only) are passed over.
    public static func preferred(in challenges: [AuthenticationChallenge]) -> AuthenticationChallenge? {
        func rank(_ challenge: AuthenticationChallenge) -> Int? {
            switch challenge.scheme {
            case "basic": return 0
            case "digest":
                guard challenge.parameters["nonce"] != nil, challenge.offersQopAuth != false else { return nil }
                switch DigestAlgorithm(challenge.parameters["algorithm"]) {
                case .sha256: return 2
                case .md5: return 1
                case nil: return nil
                }
            default: return nil
            }
        }
        var best: (rank: Int, challenge: AuthenticationChallenge)?
        for challenge in challenges {
            guard let rank = rank(challenge) else { continue }
            if best == nil || rank > best!.rank { best = (rank, challenge) }
        }
        return best?.challenge
    }

    /// Whether `qop` lists `auth`; `nil` when the challenge names no `qop` (RFC 2069 style).
    var offersQopAuth: Bool? {
        guard let qop = parameters["qop"] else { return nil }
        return qop.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "auth" }
    }

    /// Whether the server says the credentials were right and only the nonce expired.
    var isStale: Bool { parameters["stale"]?.lowercased() == "true" }
}

/// The grammar of `WWW-Authenticate`, over its UTF-8 bytes.
private struct ChallengeParser {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    private static let tokenSymbols = Set("!#$%&'*+-.^_`|~".utf8)
    private static let token68Symbols = Set("-._~+/".utf8)

    private func isTokenByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || Self.tokenSymbols.contains(byte)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipSpace() {
        while let byte = current, byte == 0x20 || byte == 0x09 { index += 1 }
    }

    private mutating func skipSpaceAndCommas() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x2C { index += 1 }
    }

    private mutating func token(allowing extra: Set<UInt8> = []) -> String {
        let start = index
        while let byte = current, isTokenByte(byte) || extra.contains(byte) { index += 1 }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// A quoted string from its opening quote: `\` escapes the next byte. `nil` when unterminated.
    private mutating func quotedString() -> String? {
        index += 1
        var value: [UInt8] = []
        while let byte = current {
            index += 1
            if byte == 0x5C {
                guard let escaped = current else { return nil }
                value.append(escaped)
                index += 1
            } else if byte == 0x22 {
                return String(decoding: value, as: UTF8.self)
            } else {
                value.append(byte)
            }
        }
        return nil
    }

    mutating func challenges() -> [AuthenticationChallenge] {
        var result: [AuthenticationChallenge] = []
        var open: AuthenticationChallenge?
        while true {
            let before = index
            skipSpaceAndCommas()
            let crossedComma = bytes[before..<index].contains(0x2C)
            guard current != nil else { break }
            let start = index
            let word = token(allowing: Self.token68Symbols)
            guard !word.isEmpty else { return result } // a byte no rule allows here
            let isPlainToken = word.utf8.allSatisfy { isTokenByte($0) }
            // Right after a scheme (no comma between): a token68, with its "=" padding if any.
            let mayBeToken68 = open.map { $0.parameters.isEmpty && $0.token68 == nil } == true && !crossedComma
            if mayBeToken68, current == 0x3D || !isPlainToken,
               index + 1 >= bytes.count || [0x3D, 0x2C, 0x20, 0x09].contains(bytes[index + 1]) || current != 0x3D {
                while current == 0x3D { index += 1 }
                open?.token68 = String(decoding: bytes[start..<index], as: UTF8.self)
                continue
            }
            skipSpace()
            if current == 0x3D { // a parameter of the open challenge
                guard var challenge = open, isPlainToken else { return result }
                index += 1
                skipSpace()
                let value: String
                if current == 0x22 {
                    guard let quoted = quotedString() else { return result }
                    value = quoted
                } else {
                    value = token()
                    guard !value.isEmpty else { return result }
                }
                challenge.parameters[word.lowercased()] = value
                open = challenge
            } else if mayBeToken68 {
                open?.token68 = word
            } else {
                guard isPlainToken else { return result } // a scheme is a plain token
                if let finished = open { result.append(finished) }
                open = AuthenticationChallenge(scheme: word)
            }
        }
        if let finished = open { result.append(finished) }
        return result
    }
}
