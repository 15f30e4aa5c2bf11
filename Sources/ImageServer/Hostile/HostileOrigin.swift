import Foundation
import ShashinCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A raw TCP origin on 127.0.0.1 that answers each ``HostileBehaviour`` with exact bytes, for
/// tests and probes of what a client does with a server that breaks HTTP's rules. It is not an
/// HTTP server: it reads a request head, writes the behaviour's bytes and closes, one thread per
/// connection, so nothing in between can tidy up what it writes.
///
/// ```swift
/// let origin = try HostileOrigin(image: pngBytes)
/// let url = origin.url(.authChallenge)   // http://127.0.0.1:PORT/auth-challenge
/// origin.stop()
/// ```
public final class HostileOrigin: Sendable {
    private struct State {
        var clients: Set<Int32> = []
        var isStopped = false
        var requestCount = 0
    }

    /// The port it listens on, on 127.0.0.1.
    public let port: UInt16
    /// The body of ``HostileBehaviour/image`` and the other behaviours that send an image.
    public let image: Data
    private let listener: Int32
    private let state = Locked(State())

    /// Listens on 127.0.0.1 at `port` (0: any free port) and starts accepting connections.
    public init(image: Data, port: UInt16 = 0) throws {
        self.image = image
        let fd = socket(AF_INET, Self.streamType, 0)
        guard fd >= 0 else { throw HostileOriginError.socket(errno) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            let code = errno
            close(fd)
            throw HostileOriginError.socket(code)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.port = UInt16(bigEndian: address.sin_port)
        listener = fd
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "HostileOrigin.accept"
        thread.start()
    }

    deinit { stop() }

    /// `http://127.0.0.1:PORT/<behaviour>` with `query` (such as `to=8080`) when given.
    public func url(_ behaviour: HostileBehaviour, query: String? = nil) -> URL {
        URL(string: "http://127.0.0.1:\(port)/\(behaviour.rawValue)\(query.map { "?\($0)" } ?? "")")!
    }

    /// The requests read so far.
    public var requestCount: Int { state.withLock { $0.requestCount } }

    /// Stops listening and closes every open connection (a stalled one included).
    public func stop() {
        let wasRunning = state.withLock { state -> Bool in
            guard !state.isStopped else { return false }
            state.isStopped = true
            // Under the lock: a connection's thread closes its descriptor only after leaving
            // `clients` (under the lock too), so none of these can be a reused number.
            for client in state.clients { shutdown(client, Int32(SHUT_RDWR)) }
            return true
        }
        // Wakes the accept loop, which closes the listener as it leaves.
        if wasRunning { shutdown(listener, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop() {
        defer { close(listener) }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let admitted = state.withLock { state -> Bool in
                guard !state.isStopped else { return false }
                state.clients.insert(client)
                return true
            }
            guard admitted else { close(client); return }
            var noSigPipe: Int32 = 1
            #if canImport(Darwin)
            setsockopt(client, SOL_SOCKET, SO_NOSIGPIPE, &noSigPipe, socklen_t(MemoryLayout<Int32>.size))
            #else
            _ = noSigPipe
            #endif
            let thread = Thread { [self] in
                serve(client)
                state.withLock { state in
                    _ = state.clients.remove(client)
                    close(client)
                }
            }
            thread.name = "HostileOrigin.connection"
            thread.start()
        }
    }

    private func serve(_ client: Int32) {
        guard let head = readHead(client) else { return }
        state.withLock { $0.requestCount += 1 }
        let target = head.split(separator: " ", maxSplits: 2).dropFirst().first.map(String.init) ?? "/"
        let components = URLComponents(string: target)
        let name = String((components?.path ?? "/").dropFirst())
        let query = Dictionary((components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        guard let behaviour = HostileBehaviour(rawValue: name) else {
            write(client, Data("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
            return
        }
        let script = HostileScript(behaviour: behaviour, image: image, port: UInt16(query["to"] ?? "") ?? port,
                                   headerCount: Int(query["count"] ?? "") ?? 51_000)
        for part in script.parts {
            write(client, part)
        }
        if behaviour == .stall {
            // Hold the connection without a byte until the client gives up (or `stop`).
            var byte: UInt8 = 0
            while recv(client, &byte, 1, 0) > 0 {}
        }
    }

    /// The request line and header fields, up to the blank line; `nil` if the client left first.
    private func readHead(_ client: Int32) -> String? {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.count < 1 << 20 {
            let count = recv(client, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            received.append(contentsOf: buffer[0..<count])
            if received.range(of: Data("\r\n\r\n".utf8)) != nil { break }
        }
        return String(decoding: received, as: UTF8.self)
    }

    private func write(_ client: Int32, _ data: Data) {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let sent = send(client, bytes.baseAddress! + offset, bytes.count - offset, Self.sendFlags)
                guard sent > 0 else { return }
                offset += sent
            }
        }
    }

    #if canImport(Darwin)
    private static let streamType = SOCK_STREAM
    private static let sendFlags: Int32 = 0
    #else
    private static let streamType = Int32(SOCK_STREAM.rawValue)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #endif
}

/// Why a ``HostileOrigin`` could not start: the `errno` of the socket call that failed.
public enum HostileOriginError: Error {
    case socket(Int32)
}
