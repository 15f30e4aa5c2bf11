import Foundation

/// The exact bytes one ``HostileBehaviour`` writes, in the order written.
struct HostileScript {
    let parts: [Data]

    init(behaviour: HostileBehaviour, image: Data, port: UInt16, headerCount: Int) {
        func text(_ string: String) -> Data { Data(string.utf8) }
        let ok = "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nConnection: close\r\n"
        let wholeImage = text(ok + "Content-Length: \(image.count)\r\n\r\n") + image
        switch behaviour {
        case .image:
            parts = [wholeImage]
        case .authChallenge:
            parts = [text("HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"x\"\r\nContent-Type: text/plain\r\n"
                          + "Content-Length: 12\r\nConnection: close\r\n\r\nunauthorized")]
        case .continue100:
            parts = [text("HTTP/1.1 100 Continue\r\n\r\n"), wholeImage]
        case .earlyHints103:
            parts = [text("HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload; as=style\r\n\r\n"), wholeImage]
        case .redirectToFile:
            parts = [Self.redirect(to: "file:///etc/passwd")]
        case .redirectToData:
            parts = [Self.redirect(to: "data:text/plain;base64,aGVsbG8=")]
        case .redirectToLoopback:
            parts = [Self.redirect(to: "http://127.0.0.1:\(port)/image")]
        case .headerWithoutSpace:
            parts = [text("HTTP/1.1 200 OK\r\nContent-Type:image/png\r\nConnection:close\r\nX-Origin:hostile\r\n"
                          + "Content-Length:\(image.count)\r\n\r\n") + image]
        case .manyHeaders:
            var head = ok
            head.reserveCapacity(headerCount * 16 + 200)
            for index in 0..<max(0, headerCount) { head += "X-H\(index): v\r\n" }
            parts = [text(head + "Content-Length: \(image.count)\r\n\r\n") + image]
        case .twoContentLengths:
            parts = [text(ok + "Content-Length: \(image.count / 2)\r\nContent-Length: \(image.count)\r\n\r\n") + image]
        case .garbageStatusLine:
            parts = [text("SPDY/9 banana\r\nContent-Length: \(image.count)\r\n\r\n") + image]
        case .http09:
            parts = [image]
        case .brokenGzip:
            // A gzip member header (magic, deflate, no flags), then bytes no inflater accepts.
            let garbage = Data((0..<1590).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 0xF7) })
            let body = Data([0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0x03]) + garbage
            parts = [text(ok + "Content-Encoding: gzip\r\nContent-Length: \(body.count)\r\n\r\n") + body]
        case .hugeHeaderLine:
            parts = [text(ok + "X-Huge: " + String(repeating: "a", count: 2 << 20) + "\r\n"
                          + "Content-Length: \(image.count)\r\n\r\n") + image]
        case .stall:
            parts = [text(ok + "Content-Length: 100000\r\n\r\n") + Data(repeating: 0x41, count: 100)]
        case .shortContentLength:
            parts = [text(ok + "Content-Length: \(image.count / 2)\r\n\r\n") + image]
        case .longContentLength:
            parts = [text(ok + "Content-Length: \(image.count * 2)\r\n\r\n") + image]
        }
    }

    private static func redirect(to location: String) -> Data {
        Data("HTTP/1.1 302 Found\r\nLocation: \(location)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
    }
}
