import Foundation

/// How a server asks for credentials: the scheme of a `WWW-Authenticate` challenge this library answers.
public enum AuthenticationScheme: String, Sendable, Hashable {
    /// RFC 7617: the password is sent, base64-encoded, with every request.
    case basic = "Basic"
    /// RFC 7616: a hash over the password and a server nonce is sent; the password never is.
    case digest = "Digest"
}

/// Where a credential is valid: an origin (scheme, host, port), a realm and a scheme. A
/// credential provider is asked once per protection space.
public struct ProtectionSpace: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https`, lowercased.
    public let scheme: String
    /// The host, lowercased.
    public let host: String
    /// The port, the scheme's default when the URL names none.
    public let port: Int
    /// The challenge's `realm` (empty when it sent none).
    public let realm: String
    /// The challenge's scheme.
    public let authenticationScheme: AuthenticationScheme

    /// A protection space; see the properties.
    public init(scheme: String, host: String, port: Int, realm: String, authenticationScheme: AuthenticationScheme) {
        self.scheme = scheme.lowercased()
        self.host = host.lowercased()
        self.port = port
        self.realm = realm
        self.authenticationScheme = authenticationScheme
    }

    init(origin: Origin, realm: String, authenticationScheme: AuthenticationScheme) {
        self.init(scheme: origin.scheme, host: origin.host, port: origin.port, realm: realm,
                  authenticationScheme: authenticationScheme)
    }

    /// The origin the space belongs to.
    var origin: Origin { Origin(scheme: scheme, host: host, port: port) }

    public var description: String {
        "\(authenticationScheme.rawValue) realm=\"\(realm)\" at \(scheme)://\(host):\(port)"
    }
}
