import Foundation

/// A user name and password answering an HTTP authentication challenge (Basic or Digest).
///
/// Its `description` hides the password, so logging a credential does not leak it.
public struct Credential: Sendable, Hashable, CustomStringConvertible {
    /// The user name.
    public var user: String
    /// The password.
    public var password: String

    /// A credential for `user` with `password`.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// `user:password` as curl's `-u` takes it (the password may contain `:`); `nil` without a colon.
    public init?(userColonPassword text: String) {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        self.init(user: String(text[..<colon]), password: String(text[text.index(after: colon)...]))
    }

    public var description: String { "Credential(user: \(user), password: <hidden>)" }
}

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

/// Scheme, host and port of a URL (RFC 6454): credentials never cross from one origin to another.
struct Origin: Sendable, Hashable, CustomStringConvertible {
    let scheme: String
    let host: String
    let port: Int

    init(scheme: String, host: String, port: Int) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// The origin of an `http` or `https` URL with a host; `nil` for anything else.
    init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        self.init(scheme: scheme, host: host, port: url.port ?? (scheme == "https" ? 443 : 80))
    }

    var description: String { "\(scheme)://\(host):\(port)" }
}
