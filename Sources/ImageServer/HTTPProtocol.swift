/// The HTTP version a connection speaks, as TLS's ALPN names it.
public enum HTTPProtocol: String, Sendable, Hashable, CaseIterable {
    /// HTTP/1.1: every plain-text connection, and a TLS connection whose client offered `http/1.1`
    /// or nothing by ALPN.
    case http1_1 = "http/1.1"
    /// HTTP/2, negotiated by ALPN (`h2`) on the HTTPS listener; many requests share one connection.
    case http2 = "h2"
}
