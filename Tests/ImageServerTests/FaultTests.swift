import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import ImageServer

@Suite("Faults")
struct FaultTests {
    static let body = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })

    /// URLSession notices the missing bytes and fails: on Linux with `NSURLErrorUnknown`
    /// ("transfer closed with N bytes remaining to read"), on Apple platforms with
    /// `networkConnectionLost`.
    func expectBrokenBody(_ server: ImageServer, path: String) async {
        await #expect(throws: (any Error).self) { try await fetch(server.url(path)) }
    }

    @Test func status500FaultAnswers500() async throws {
        try await withServer { server in
            var script = RouteScript.data(Self.body)
            script.fault = .status500
            server.setRoute("/f", script)
            let (_, response) = try await fetch(server.url("/f"))
            #expect(response.statusCode == 500)
        }
    }

    @Test func droppedConnectionFailsTheClient() async throws {
        try await withServer { server in
            var script = RouteScript.data(Self.body)
            script.fault = .dropConnectionMidBody
            server.setRoute("/f", script)
            await expectBrokenBody(server, path: "/f")
            #expect(await eventually { server.inFlight == 0 })
            #expect(server.bytesSent(for: "/f") == Self.body.count / 2)
        }
    }

    @Test func shortBodyFailsTheClient() async throws {
        try await withServer { server in
            var script = RouteScript.data(Self.body)
            script.fault = .shortBody
            server.setRoute("/f", script)
            await expectBrokenBody(server, path: "/f")
            #expect(await eventually { server.inFlight == 0 })
            #expect(server.bytesSent(for: "/f") == Self.body.count)
        }
    }

    @Test func droppedConnectionMidThrottledBodyFailsTheClient() async throws {
        try await withServer { server in
            var script = RouteScript.data(Self.body)
            script.fault = .dropConnectionMidBody
            script.bytesPerSecond = 1_000_000
            server.setRoute("/f", script)
            await expectBrokenBody(server, path: "/f")
        }
    }

    @Test func serverKeepsServingAfterAFault() async throws {
        try await withServer { server in
            var script = RouteScript.data(Self.body)
            script.fault = .dropConnectionMidBody
            server.setRoute("/f", script)
            let session = makeSession()
            _ = try? await fetch(server.url("/f"), session: session)
            server.updateRoute("/f") { $0.fault = nil }
            let (data, response) = try await fetch(server.url("/f"), session: session)
            #expect(response.statusCode == 200)
            #expect(data == Self.body)
        }
    }

    @Test func stallTimesOutTheClientAndDoesNotDelayStop() async throws {
        let server = ImageServer()
        try await server.start()
        var script = RouteScript.data(Self.body)
        script.fault = .stall
        server.setRoute("/stall", script)

        let client = Task {
            await measure { () -> Result<(Data, HTTPURLResponse), any Error> in
                // Whole seconds: URLSession on Linux times out at once when given less than one.
                do { return .success(try await fetch(server.url("/stall"), session: makeSession(timeout: 2))) }
                catch { return .failure(error) }
            }
        }
        let (result, seconds) = await client.value
        #expect(throws: (any Error).self) { try result.get() }
        #expect(seconds >= 1.9)
        // The client gave up on a response the server had begun and held (on a busy machine the
        // server may read the request only after the client left, so this is checked afterwards;
        // `stopReleasesAClientWaitingOnAStall` checks it while the client waits).
        #expect(await eventually { server.maxInFlight == 1 && server.requestCount(for: "/stall") == 1 })

        let (_, stopSeconds) = await measure { await server.stop() }
        #expect(stopSeconds < 10) // far below the 60 s stall limit
        #expect(await eventually { server.inFlight == 0 })
    }

    @Test func stopReleasesAClientWaitingOnAStall() async throws {
        let server = ImageServer()
        try await server.start()
        var script = RouteScript.data(Self.body)
        script.fault = .stall
        server.setRoute("/stall", script)

        // The client would wait longer than the test; the server holds the stalled response
        // until it is stopped, however late a busy machine lets it read the request.
        let client = Task { try await fetch(server.url("/stall"), session: makeSession(timeout: 120)) }
        #expect(await eventually(timeout: .seconds(100)) { server.inFlight == 1 })
        let (_, stopSeconds) = await measure { await server.stop() }
        #expect(stopSeconds < 10) // far below the 60 s stall limit
        let (outcome, clientSeconds) = await measure { await client.result }
        #expect(clientSeconds < 20)
        if case .success(let (data, _)) = outcome {
            #expect(data.count < Self.body.count)
        }
    }

    @Test func stallEndsAfterTheStallLimit() async throws {
        try await withServer { server in
            server.stallLimit = .milliseconds(100)
            var script = RouteScript.data(Self.body)
            script.fault = .stall
            server.setRoute("/stall", script)
            await expectBrokenBody(server, path: "/stall")
            #expect(await eventually { server.inFlight == 0 })
        }
    }
}
