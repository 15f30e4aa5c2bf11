import Foundation
import NIOCore
import NIOSSL
import Testing
import ImageServer

@Suite("HTTPS and HTTP/2")
struct HTTPSTests {
    func withHTTPSServer<T>(_ body: (ImageServer, String) async throws -> T) async throws -> T {
        try await withServer(ImageServer(httpsPort: 0)) { server in
            try await body(server, try #require(server.certificatePEM))
        }
    }

    @Test func negotiatesHTTP2AndServesManyImagesOverOneConnection() async throws {
        try await withHTTPSServer { server, pem in
            let specs = (0..<50).map { ImageSpec(format: .png, width: 40 + $0, height: 30, seed: UInt64($0)) }
            let connection = try await TLSTestConnection.open(port: try #require(server.httpsPort), trusting: pem)
            #expect(connection.negotiated == "h2")
            try await withThrowingTaskGroup(of: (ImageSpec, TestResponse).self) { group in
                for spec in specs {
                    group.addTask { (spec, try await connection.get(spec.path)) }
                }
                for try await (spec, response) in group {
                    #expect(response.status == 200)
                    #expect(response.body == (try await server.generator.data(for: spec)))
                }
            }
            await connection.close()
            #expect(server.connectionsAccepted == 1)
            #expect(server.secureConnectionsAccepted == 1)
            #expect(server.connectionsNegotiated(.http2) == 1)
            #expect(server.connectionsNegotiated(.http1_1) == 0)
            #expect(server.totalRequests == 50)
            let last = try #require(server.lastRequest(for: specs[0].path))
            #expect(last.httpVersion == "HTTP/2")
            #expect(last.isSecure)
        }
    }

    @Test func fallsBackToHTTP1WhenTheClientOffersOnlyIt() async throws {
        try await withHTTPSServer { server, pem in
            server.setRoute("/a", .data(Data("over tls".utf8)))
            let connection = try await TLSTestConnection.open(port: try #require(server.httpsPort), trusting: pem, alpn: ["http/1.1"])
            #expect(connection.negotiated == "http/1.1")
            for _ in 0..<3 {
                let response = try await connection.get("/a")
                #expect(response.status == 200)
                #expect(response.body == Data("over tls".utf8))
            }
            await connection.close()
            #expect(server.connectionsAccepted == 1)   // keep-alive: three requests, one connection
            #expect(server.connectionsNegotiated(.http1_1) == 1)
            #expect(server.lastRequest(for: "/a")?.httpVersion == "HTTP/1.1")
            #expect(server.lastRequest(for: "/a")?.isSecure == true)
        }
    }

    @Test func servesPlainHTTPAlongsideWithSharedRoutesAndCounters() async throws {
        try await withHTTPSServer { server, pem in
            server.setRoute("/shared", .data(Data([1, 2, 3])))
            let (plain, _) = try await fetch(server.url("/shared"))
            let connection = try await TLSTestConnection.open(port: try #require(server.httpsPort), trusting: pem)
            let secure = try await connection.get("/shared")
            await connection.close()
            #expect(plain == secure.body)
            #expect(server.requestCount(for: "/shared") == 2)
            #expect(server.connectionsAccepted == 2)
            #expect(server.secureConnectionsAccepted == 1)
            #expect(server.httpsURL("/shared")?.absoluteString == "https://127.0.0.1:\(server.httpsPort!)/shared")
        }
    }

    @Test func aClientTrustingAnotherCertificateIsRefused() async throws {
        let other = ImageServer(httpsPort: 0)
        try await other.start()
        let foreign = try #require(other.certificatePEM)
        await other.stop()
        try await withHTTPSServer { server, pem in
            #expect(foreign != pem)
            await #expect(throws: (any Error).self) {
                try await TLSTestConnection.open(port: try #require(server.httpsPort), trusting: foreign)
            }
        }
    }

    @Test func theCertificateNamesLoopbackAndLastsThirtyDaysFromAnHourAgo() async throws {
        try await withHTTPSServer { _, pem in
            let certificate = try NIOSSLCertificate(bytes: Array(pem.utf8), format: .pem)
            let now = Int(Date().timeIntervalSince1970)
            #expect(abs(Int(certificate.notValidBefore) - (now - 3600)) < 120)
            #expect(abs(Int(certificate.notValidAfter) - (now + 30 * 86400)) < 120)
            var dnsNames: [String] = [], addresses: [[UInt8]] = []
            for name in certificate._subjectAlternativeNames() {
                let bytes = name.contents.withUnsafeBufferPointer { Array($0) }
                switch name.nameType {
                case .dnsName: dnsNames.append(String(decoding: bytes, as: UTF8.self))
                case .ipAddress: addresses.append(bytes)
                default: Issue.record("an unexpected subject alternative name: \(name.nameType)")
                }
            }
            #expect(dnsNames == ["localhost"])
            #expect(addresses == [[127, 0, 0, 1], [UInt8](repeating: 0, count: 15) + [1]])
        }
    }

    /// Below the ephemeral range, so no other test's server can take the ports while it is stopped.
    @Test func keepsItsCertificateAndPortAcrossARestart() async throws {
        let server = try await serverBelowEphemeralPorts(https: true)
        let pem = try #require(server.certificatePEM)
        let port = try #require(server.httpsPort)
        let der = try #require(server.certificateDER)
        #expect(try NIOSSLCertificate(bytes: Array(der), format: .der) == NIOSSLCertificate(bytes: Array(pem.utf8), format: .pem))
        await server.stop()
        try await server.start()
        #expect(server.certificatePEM == pem)
        #expect(server.httpsPort == port)
        let connection = try await TLSTestConnection.open(port: port, trusting: pem)
        #expect(try await connection.get("/").status == 200)
        await connection.close()
        await server.stop()
    }

    @Test func stopClosesOpenHTTP2Connections() async throws {
        let server = ImageServer(httpsPort: 0)
        try await server.start()
        let connection = try await TLSTestConnection.open(port: try #require(server.httpsPort), trusting: try #require(server.certificatePEM))
        #expect(try await connection.get("/").status == 200)
        #expect(server.openConnections == 1)
        await server.stop()
        #expect(server.openConnections == 0)
        try await connection.channel.closeFuture.get()   // the server's close reached the client
    }

    @Test func aDroppedHTTP2StreamFailsThatRequestOnly() async throws {
        try await withHTTPSServer { server, pem in
            var script = RouteScript.data(Data(count: 100_000))
            script.fault = .dropConnectionMidBody
            server.setRoute("/dropped", script)
            server.setRoute("/fine", .data(Data([7])))
            let connection = try await TLSTestConnection.open(port: try #require(server.httpsPort), trusting: pem)
            await #expect(throws: (any Error).self) { try await connection.get("/dropped") }
            #expect(try await connection.get("/fine").body == Data([7]))   // the connection lives on
            await connection.close()
            #expect(await eventually { server.bytesSent(for: "/dropped") == 50_000 })
        }
    }

    @Test func servesRangesAndDigestChallengesOverHTTP2() async throws {
        try await withHTTPSServer { server, pem in
            var ranged = RouteScript.data(Data((0..<1000).map { UInt8(truncatingIfNeeded: $0) }), headers: ["ETag": "\"r\""])
            ranged.servesRanges = true
            server.setRoute("/ranged", ranged)
            var locked = RouteScript.data(Data([1]))
            locked.authentication = .digest(user: "u", password: "p")
            server.setRoute("/locked", locked)
            let connection = try await TLSTestConnection.open(port: try #require(server.httpsPort), trusting: pem)
            let part = try await connection.get("/ranged", headers: [("Range", "bytes=990-"), ("If-Range", "\"r\"")])
            #expect(part.status == 206)
            #expect(part.body == Data((990..<1000).map { UInt8(truncatingIfNeeded: $0) }))
            #expect(part.headers["content-range"] == ["bytes 990-999/1000"])
            let challenge = try await connection.get("/locked")
            #expect(challenge.status == 401)
            let offers = challenge.headers["www-authenticate"]
            #expect(offers.count == 2)
            #expect(offers.first?.contains("algorithm=SHA-256") == true)
            #expect(offers.last?.contains("algorithm=MD5") == true)
            await connection.close()
        }
    }
}
