import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A bare HTTP/1.1 server on 127.0.0.1 that writes exactly the bytes a test scripts, for what
/// ImageServer normalises away: interim 1xx responses, repeated or conflicting framing fields,
/// unknown transfer codings, hop-by-hop fields, a response that stalls mid-body. It counts
/// connections, which ImageServer does not. One thread per connection: a few dozen at most.
final class RawHTTPServer: @unchecked Sendable { // `counts` and `clients` behind `lock`; the rest immutable
    /// What to do with one request.
    struct Reply: Sendable {
        /// Written as they are.
        var bytes: Data
        /// After writing, keep the connection without answering more, until the client closes it.
        var holds = false
        /// After writing, close the connection.
        var closes = false
        /// Writes `bytes` 100 at a time, pausing this many seconds between writes.
        var trickle: Double?
    }

    /// Connections open now, accepted in all, most open at once, requests read, connections
    /// holding a reply (waiting for the client to close).
    struct Counts: Sendable { var open = 0, accepted = 0, maxOpen = 0, requests = 0, holding = 0 }

    let port: Int
    private let listener: Int32
    private let respond: @Sendable (_ head: String) -> Reply
    private let lock = NSLock()
    private var counts = Counts()
    private var clients = Set<Int32>()
    private var stopped = false

    /// Starts listening; `respond` gets each request's head (request line and fields).
    init(_ respond: @escaping @Sendable (_ head: String) -> Reply) throws {
        self.respond = respond
        let (fd, port) = try boundLoopbackSocket(reusesAddress: true)
        guard listen(fd, 512) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        listener = fd
        self.port = port
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    var current: Counts { lock.withLock { counts } }

    /// Stops accepting and closes every connection.
    func stop() {
        let open = lock.withLock { () -> Set<Int32> in
            stopped = true
            return clients
        }
        shutdown(listener, Int32(SHUT_RDWR))
        for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                break
            }
            let admitted = lock.withLock { () -> Bool in
                guard !stopped else { return false }
                clients.insert(fd)
                counts.open += 1
                counts.accepted += 1
                counts.maxOpen = max(counts.maxOpen, counts.open)
                return true
            }
            guard admitted else { close(fd); break }
            Thread.detachNewThread { [self] in serve(fd) }
        }
        close(listener)
    }

    private func serve(_ fd: Int32) {
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        connection: while true {
            // Reads up to the end of a request head; bodies are not expected (GET and HEAD).
            var end: Int?
            while end == nil {
                let count = read(fd, &chunk, chunk.count)
                if count <= 0 { break connection }
                buffer.append(contentsOf: chunk[0..<count])
                end = Self.headEnd(in: buffer)
            }
            guard let headEnd = end else { break }
            let head = String(decoding: buffer[0..<headEnd], as: UTF8.self)
            buffer.removeFirst(headEnd + 4)
            lock.withLock { counts.requests += 1 }
            let reply = respond(head)
            if let pause = reply.trickle {
                var offset = 0
                var failed = false
                while offset < reply.bytes.count, !failed {
                    let end = min(reply.bytes.count, offset + 100)
                    failed = !write(all: reply.bytes.subdata(in: offset..<end), to: fd)
                    offset = end
                    Thread.sleep(forTimeInterval: pause)
                }
                if failed { break }
            } else {
                guard write(all: reply.bytes, to: fd) else { break }
            }
            if reply.holds {
                lock.withLock { counts.holding += 1 }
                while read(fd, &chunk, chunk.count) > 0 {}
                lock.withLock { counts.holding -= 1 }
                break
            }
            if reply.closes { break }
        }
        lock.withLock {
            clients.remove(fd)
            counts.open -= 1
        }
        close(fd)
    }

    private func write(all data: Data, to fd: Int32) -> Bool {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if written <= 0 { return false }
                offset += written
            }
            return true
        }
    }

    private static func headEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i
        }
        return nil
    }

    /// A response's bytes: the status line, `fields` in order and as given (nothing added), a
    /// blank line, `body`.
    static func response(status: String = "200 OK", _ fields: [(String, String)], body: Data = Data()) -> Data {
        var text = "HTTP/1.1 \(status)\r\n"
        for (name, value) in fields { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        return Data(text.utf8) + body
    }

    /// `body` in chunked framing, in pieces of `size` bytes.
    static func chunked(_ body: Data, size: Int = 1000) -> Data {
        var out = Data()
        var offset = 0
        while offset < body.count {
            let piece = body[body.startIndex + offset ..< body.startIndex + min(body.count, offset + size)]
            out += Data((String(piece.count, radix: 16) + "\r\n").utf8) + piece + Data("\r\n".utf8)
            offset += piece.count
        }
        return out + Data("0\r\n\r\n".utf8)
    }
}
