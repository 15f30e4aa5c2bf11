import Foundation

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
