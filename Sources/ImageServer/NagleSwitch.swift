import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Sets TCP_NODELAY on this process's sockets bound to `port`: the server's listening socket,
/// whose setting Linux hands on to every connection it accepts.
///
/// FlyingFox writes a response's headers and body in separate writes and never sets TCP_NODELAY,
/// so on loopback Nagle's algorithm holds the body until the client ACKs the headers, which it
/// delays by ~40 ms: every response would take at least 40 ms. FlyingFox gives no hook on its
/// socket, so the socket is found by its port in `/proc/self/fd`.
func disableNagle(onSocketsOfPort port: Int) {
    #if os(Linux)
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return }
    for entry in entries {
        guard let fd = Int32(entry) else { continue }
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0, address.sin_family == sa_family_t(AF_INET),
              Int(UInt16(bigEndian: address.sin_port)) == port else { continue }
        var on: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }
    #endif
}
