import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a loader may connect: the guard a server needs when it loads URLs its users supply
/// (server-side request forgery). Off by default (`.unrestricted`) on every platform: an app
/// loads what it was built to load, and development servers live on loopback.
///
/// `.publicAddressesOnly` resolves the host (`getaddrinfo`) before the first request and before
/// every redirect is followed, and refuses with `ImagePipelineError.destinationRefused` when any
/// address it resolves to is loopback (127/8, ::1), private (10/8, 172.16/12, 192.168/16,
/// fc00::/7), link-local (169.254/16 — cloud metadata services at 169.254.169.254 among them —
/// and fe80::/10), carrier-grade NAT (100.64/10), unspecified, multicast or reserved; IPv4
/// addresses inside IPv6 (`::ffff:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`) are judged as IPv4.
///
/// What it does not cover: the HTTP stack resolves the name again when it connects, so a DNS
/// server that answers a public address to our check and an internal one a moment later (DNS
/// rebinding, with a zero TTL) gets past it; so does a configured HTTP proxy, which makes the
/// connection itself. Where that matters, also refuse internal addresses at the network level
/// (an egress firewall, or a proxy that enforces the same rule on the address it connects to).
///
/// ```swift
/// // A server resizing images from user-supplied URLs:
/// configuration.dataLoader = URLSessionDataLoader(destinationPolicy: .publicAddressesOnly)
/// ```
public struct DestinationPolicy: Sendable, Hashable {
    /// Whether internal addresses are refused.
    public var refusesInternalAddresses: Bool
    /// Endpoints let through without a check: `host` or `host:port`, as written in URLs (an
    /// internal image service a server is meant to reach, or a loopback test server).
    public var allowedEndpoints: Set<String>

    /// Connects anywhere: the default.
    public static let unrestricted = DestinationPolicy(refusesInternalAddresses: false, allowedEndpoints: [])
    /// Refuses internal addresses on the first request and every redirect.
    public static let publicAddressesOnly = DestinationPolicy(refusesInternalAddresses: true, allowedEndpoints: [])

    /// Creates a policy.
    public init(refusesInternalAddresses: Bool, allowedEndpoints: Set<String> = []) {
        self.refusesInternalAddresses = refusesInternalAddresses
        self.allowedEndpoints = allowedEndpoints
    }

    /// Throws `ImagePipelineError.destinationRefused` when `url`'s host resolves to an internal
    /// address, and `URLError(.cannotFindHost)` when it does not resolve at all. Blocks while
    /// resolving: call it off the Swift concurrency pool.
    public func check(_ url: URL) throws {
        guard refusesInternalAddresses, let host = url.host, !host.isEmpty else { return }
        let bareHost = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if allowedEndpoints.contains(host.lowercased()) { return }
        if let port = url.port, allowedEndpoints.contains("\(host.lowercased()):\(port)") { return }
        for address in try Self.resolve(bareHost) where Self.isInternal(address) {
            throw ImagePipelineError.destinationRefused(host: bareHost, address: Self.text(of: address))
        }
    }

    /// An address as bytes: 4 for IPv4, 16 for IPv6.
    typealias Address = [UInt8]

    /// Every address `host` resolves to.
    static func resolve(_ host: String) throws(URLError) -> [Address] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            let message = status == 0 ? "no address" : String(cString: gai_strerror(status))
            throw .failure(.cannotFindHost, "Cannot resolve \(host): \(message)")
        }
        defer { freeaddrinfo(first) }
        var addresses: [Address] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next {
            if let socketAddress = entry.pointee.ai_addr {
                switch entry.pointee.ai_family {
                case AF_INET:
                    let v4 = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                    addresses.append(withUnsafeBytes(of: v4) { Array($0) })
                case AF_INET6:
                    let v6 = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                    addresses.append(withUnsafeBytes(of: v6) { Array($0) })
                default: break
                }
            }
            next = entry.pointee.ai_next
        }
        guard !addresses.isEmpty else {
            throw .failure(.cannotFindHost, "Cannot resolve \(host): no address")
        }
        return addresses
    }

    /// Whether a connection to `address` reaches this machine, its network, or something that
    /// is not a public host.
    static func isInternal(_ address: Address) -> Bool {
        if address.count == 4 { return isInternalV4(address) }
        guard address.count == 16 else { return true }
        let prefix96 = Array(address[0..<12])
        if prefix96 == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] || prefix96 == [0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] {
            return isInternalV4(Array(address[12..<16]))
        }
        if address[0..<15].allSatisfy({ $0 == 0 }) { return true }   // :: and ::1
        if address[0] & 0xFE == 0xFC { return true }                   // fc00::/7, unique local
        if address[0] == 0xFE, address[1] & 0xC0 == 0x80 { return true } // fe80::/10, link-local
        if address[0] == 0xFF { return true }                          // multicast
        return false
    }

    private static func isInternalV4(_ a: Address) -> Bool {
        switch (a[0], a[1]) {
        case (0, _), (10, _), (127, _): true
        case (100, 64...127): true          // carrier-grade NAT
        case (169, 254): true               // link-local, cloud metadata
        case (172, 16...31): true
        case (192, 168): true
        case (192, 0) where a[2] == 0: true // IETF protocol assignments
        case (198, 18...19): true           // benchmarking
        case (224..., _): true              // multicast, reserved, broadcast
        default: false
        }
    }

    static func text(of address: Address) -> String {
        if address.count == 4 { return address.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: address.count, by: 2)
            .map { String(UInt16(address[$0]) << 8 | UInt16(address[$0 + 1]), radix: 16) }
            .joined(separator: ":")
    }
}
