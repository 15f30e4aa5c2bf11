/// The credentials a scripted route demands, and how it asks for them: HTTP Basic (RFC 7617) or
/// Digest (RFC 7616, `qop=auth`).
///
/// A request without valid credentials gets `401 Unauthorized` with a `WWW-Authenticate`
/// challenge (one per Digest algorithm, in the order given) and no body of the script's; the
/// server counts it with ``ImageServer/challengesSent(for:)``. An accepted one is answered as the
/// script says and counted with ``ImageServer/authenticatedRequests(for:)``.
///
/// ```swift
/// var script = RouteScript.image(spec)
/// script.authentication = .digest(user: "ann", password: "secret", algorithms: [.sha256])
/// server.setRoute("/private.jpg", script)
/// ```
public struct Authentication: Sendable, Hashable {
    /// How credentials are sent.
    public enum Scheme: Sendable, Hashable {
        /// `Authorization: Basic base64(user:password)`.
        case basic
        /// `Authorization: Digest ...` with one of these algorithms, offered in this order.
        case digest([DigestAlgorithm])
    }

    /// A Digest hash function.
    public enum DigestAlgorithm: String, Sendable, Hashable, CaseIterable {
        /// `MD5`, the RFC 2617 default, still what most clients send.
        case md5 = "MD5"
        /// `SHA-256`, RFC 7616's preferred one.
        case sha256 = "SHA-256"
    }

    /// The scheme.
    public var scheme: Scheme
    /// The protection space's name, sent as `realm`.
    public var realm: String
    /// The one user name accepted.
    public var user: String
    /// Its password.
    public var password: String
    /// How long a Digest nonce stays valid after the challenge that issued it. A request with an
    /// expired nonce but otherwise correct credentials gets a new challenge with `stale=true`.
    /// Default five minutes. (``ImageServer/expireNonces()`` ends every nonce at once.)
    public var nonceLifetime: Duration

    /// Creates a requirement; see the properties.
    public init(scheme: Scheme, realm: String = "shashin", user: String, password: String,
                nonceLifetime: Duration = .seconds(300)) {
        self.scheme = scheme
        self.realm = realm
        self.user = user
        self.password = password
        self.nonceLifetime = nonceLifetime
    }

    /// Basic authentication (RFC 7617).
    public static func basic(user: String, password: String, realm: String = "shashin") -> Authentication {
        Authentication(scheme: .basic, realm: realm, user: user, password: password)
    }

    /// Digest authentication (RFC 7616) with `qop=auth`; by default both algorithms are offered,
    /// SHA-256 first.
    public static func digest(user: String, password: String, realm: String = "shashin",
                              algorithms: [DigestAlgorithm] = [.sha256, .md5],
                              nonceLifetime: Duration = .seconds(300)) -> Authentication {
        Authentication(scheme: .digest(algorithms), realm: realm, user: user, password: password,
                       nonceLifetime: nonceLifetime)
    }
}
