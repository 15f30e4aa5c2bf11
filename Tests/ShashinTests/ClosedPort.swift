import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback TCP port that refuses connections for as long as this value lives: a socket bound
/// to it and never listening. Holding the port keeps every other server of the test process off
/// it, where a stopped server's port can be given to the next server that starts, and a request
/// meant to be refused then reaches that server.
final class ClosedPort: Sendable {
    let port: Int
    private let descriptor: Int32

    init() throws {
        (descriptor, port) = try boundLoopbackSocket(reusesAddress: false)
    }

    deinit { close(descriptor) }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }
}
