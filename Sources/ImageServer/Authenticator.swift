import Foundation
import ShashinCore

/// What an ``Authenticator`` made of a request's credentials.
enum AuthenticationOutcome: Sendable, Equatable {
    case authenticated
    /// Answer 401 with a fresh challenge; `stale` says the credentials were right but the
    /// Digest nonce had expired.
    case challenge(stale: Bool)
}

/// Checks `Authorization` against a route's ``Authentication`` and issues challenges. Digest
/// nonces live here, shared by every route of one server, with the `nc` values each has seen
/// (a repeated one is a replay and is refused; they may arrive out of order from concurrent
/// requests).
final class Authenticator: Sendable {
    private struct Nonce: Sendable {
        var expires: ContinuousClock.Instant
        var seenCounts: Set<UInt32> = []
    }

    private let nonces = Locked<[String: Nonce]>([:])
    /// Sent with every Digest challenge and required back unchanged.
    let opaque = Authenticator.randomHex(byteCount: 8)

    /// Decides whether `authorization` answers `requirement` for a request of `method` on `uri`
    /// (the request target as sent, path and query).
    func check(_ authorization: String?, requirement: Authentication, method: String, uri: String) -> AuthenticationOutcome {
        guard let authorization, let (scheme, _) = AuthParameters.parse(authorization) else {
            return .challenge(stale: false)
        }
        switch requirement.scheme {
        case .basic:
            guard scheme == "basic" else { return .challenge(stale: false) }
            return checkBasic(authorization, requirement) ? .authenticated : .challenge(stale: false)
        case .digest(let algorithms):
            guard scheme == "digest", let (_, parameters) = AuthParameters.parse(authorization) else {
                return .challenge(stale: false)
            }
            return checkDigest(parameters, requirement, algorithms: algorithms, method: method, uri: uri)
        }
    }

    /// The `WWW-Authenticate` values of a 401 for `requirement`: one for Basic, one per algorithm
    /// for Digest (each with a new nonce).
    func challenges(for requirement: Authentication, stale: Bool) -> [String] {
        switch requirement.scheme {
        case .basic:
            return ["Basic realm=\(AuthParameters.quoted(requirement.realm)), charset=\"UTF-8\""]
        case .digest(let algorithms):
            let nonce = Self.randomHex(byteCount: 16)
            let expires = ContinuousClock.now + requirement.nonceLifetime
            nonces.withLock { nonces in
                // Bounded: past a few thousand, the expired ones go (a late use then gets
                // stale=false instead of true, which a client answers the same way).
                if nonces.count >= 4096 {
                    let now = ContinuousClock.now
                    nonces = nonces.filter { $0.value.expires > now }
                }
                nonces[nonce] = Nonce(expires: expires)
            }
            return algorithms.map { algorithm in
                "Digest realm=\(AuthParameters.quoted(requirement.realm)), qop=\"auth\", algorithm=\(algorithm.rawValue), "
                    + "nonce=\"\(nonce)\", opaque=\"\(opaque)\"" + (stale ? ", stale=true" : "")
            }
        }
    }

    /// Ends every nonce issued so far: the next Digest request gets `stale=true`.
    func expireNonces() {
        let now = ContinuousClock.now
        nonces.withLock { nonces in
            for key in nonces.keys { nonces[key]?.expires = now }
        }
    }

    // MARK: - Basic (RFC 7617)

    private func checkBasic(_ authorization: String, _ requirement: Authentication) -> Bool {
        let parts = authorization.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
        guard parts.count == 2, let decoded = Data(base64Encoded: String(parts[1].trimmingCharacters(in: .whitespaces))),
              let pair = String(data: decoded, encoding: .utf8), let colon = pair.firstIndex(of: ":") else { return false }
        let user = pair[..<colon], password = pair[pair.index(after: colon)...]
        return Self.equalInConstantTime(Data(user.utf8), Data(requirement.user.utf8))
            && Self.equalInConstantTime(Data(password.utf8), Data(requirement.password.utf8))
    }

    // MARK: - Digest (RFC 7616 §3.4, qop=auth)

    private func checkDigest(_ p: [String: String], _ requirement: Authentication,
                             algorithms: [Authentication.DigestAlgorithm], method: String, uri: String) -> AuthenticationOutcome {
        // No `algorithm` means MD5 (RFC 7616 §3.3).
        guard let algorithm = Authentication.DigestAlgorithm(rawValue: p["algorithm"] ?? "MD5")
                ?? Authentication.DigestAlgorithm.allCases.first(where: {
                    $0.rawValue.caseInsensitiveCompare(p["algorithm"] ?? "") == .orderedSame }),
              algorithms.contains(algorithm),
              p["username"] == requirement.user, p["realm"] == requirement.realm, p["uri"] == uri,
              p["qop"] == "auth", p["opaque"] == opaque,
              let nonce = p["nonce"], let cnonce = p["cnonce"], !cnonce.isEmpty,
              let ncText = p["nc"], ncText.count == 8, let nc = UInt32(ncText, radix: 16),
              let response = p["response"]?.lowercased() else {
            return .challenge(stale: false)
        }
        let expected = Self.digestResponse(algorithm, user: requirement.user, realm: requirement.realm,
                                           password: requirement.password, method: method, uri: uri,
                                           nonce: nonce, nc: ncText, cnonce: cnonce)
        guard Self.equalInConstantTime(Data(response.utf8), Data(expected.utf8)) else { return .challenge(stale: false) }
        // The credentials are right; now the nonce: known, unexpired, and this nc not seen before.
        let now = ContinuousClock.now
        return nonces.withLock { nonces -> AuthenticationOutcome in
            guard var state = nonces[nonce] else { return .challenge(stale: false) }
            if state.expires <= now { return .challenge(stale: true) }
            guard state.seenCounts.insert(nc).inserted else { return .challenge(stale: false) }
            nonces[nonce] = state
            return .authenticated
        }
    }

    /// The `response` a client computes for `qop=auth` (RFC 7616 §3.4.1), lower-case hex.
    static func digestResponse(_ algorithm: Authentication.DigestAlgorithm, user: String, realm: String, password: String,
                               method: String, uri: String, nonce: String, nc: String, cnonce: String) -> String {
        let ha1 = hash(algorithm, "\(user):\(realm):\(password)")
        let ha2 = hash(algorithm, "\(method):\(uri)")
        return hash(algorithm, "\(ha1):\(nonce):\(nc):\(cnonce):auth:\(ha2)")
    }

    static func hash(_ algorithm: Authentication.DigestAlgorithm, _ text: String) -> String {
        let bytes = Array(text.utf8)
        switch algorithm {
        case .md5: return Hex.lowercase(MD5.digest(bytes))
        case .sha256: return Hex.lowercase(bytes.withUnsafeBytes { SHA256.digest($0) })
        }
    }

    static func randomHex(byteCount: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return Hex.lowercase((0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    private static func equalInConstantTime(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
