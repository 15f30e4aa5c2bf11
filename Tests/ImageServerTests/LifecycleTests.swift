import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import ImageServer

@Suite("Lifecycle")
struct LifecycleTests {
    @Test func startsAndStopsRepeatedly() async throws {
        for round in 0..<10 {
            let server = ImageServer()
            try await server.start()
            #expect(server.isRunning)
            #expect(server.port > 0)
            server.setRoute("/round", .data(Data("\(round)".utf8)))
            let (data, _) = try await fetch(server.url("/round"))
            #expect(data == Data("\(round)".utf8))
            await server.stop()
            #expect(!server.isRunning)
        }
    }

    @Test func runsManyServersAtOnce() async throws {
        let servers = (0..<6).map { _ in ImageServer() }
        for server in servers { try await server.start() }
        #expect(Set(servers.map(\.port)).count == servers.count)
        for (index, server) in servers.enumerated() {
            server.setRoute("/id", .data(Data("\(index)".utf8)))
        }
        for (index, server) in servers.enumerated() {
            let (data, _) = try await fetch(server.url("/id"))
            #expect(data == Data("\(index)".utf8))
        }
        for server in servers { await server.stop() }
    }

    /// On a port below the system's ephemeral range (32768–60999 here): while the server is
    /// stopped, no socket bound to port 0 and no outgoing connection, in this process or any
    /// other, can take it, so the restart's bind meets only explicit binds of that number.
    @Test func restartsOnTheSamePort() async throws {
        let server = try await serverBelowEphemeralPorts()
        let port = server.port
        let url = server.url("/")
        await server.stop()
        await #expect(throws: (any Error).self) { try await fetch(url, session: makeSession(timeout: 2)) }
        try await server.start()
        #expect(server.port == port)
        let (_, response) = try await fetch(url)
        #expect(response.statusCode == 200)
        await server.stop()
    }

    @Test func stopWhenStoppedDoesNothing() async throws {
        let server = ImageServer()
        await server.stop()
        try await server.start()
        try await server.start()   // already running: no second listener
        await server.stop()
        await server.stop()
        #expect(!server.isRunning)
    }

    @Test func failsToStartOnAPortInUse() async throws {
        try await withServer { first in
            let second = ImageServer(port: first.port)
            await #expect(throws: (any Error).self) { try await second.start() }
            #expect(!second.isRunning)
        }
    }

    @Test func runReturnsWhenStopped() async throws {
        let server = ImageServer()
        let running = Task { try await server.run() }
        defer { running.cancel() }
        // Under a loaded machine `run()` can take a while to bind; stopping before it has would
        // leave nothing to stop, and the server would then run on.
        try #require(await eventually { server.isRunning })
        await server.stop()
        let (_, seconds) = try await measure { try await running.value }
        #expect(seconds < 10)
    }

    @Test func stopsWhileResponsesAreInFlight() async throws {
        let server = ImageServer()
        try await server.start()
        // Both responses would take far longer than any wait here: they are in flight until the
        // server stops them, however late a loaded machine lets the requests arrive.
        var script = RouteScript.data(Data(count: 200_000))
        script.bytesPerSecond = 2_000
        server.setRoute("/slow", script)
        var latent = RouteScript.data(Data([1]))
        latent.latency = .seconds(100)
        server.setRoute("/late", latent)
        let clients = [Task { try await fetch(server.url("/slow")) }, Task { try await fetch(server.url("/late")) }]
        #expect(await eventually { server.inFlight == 2 })
        let (_, seconds) = await measure { await server.stop() }
        #expect(seconds < 10)
        for client in clients { _ = await client.result }
        #expect(await eventually { server.inFlight == 0 })
    }

    @Test func buildsURLsForPaths() async throws {
        let server = ImageServer(port: 8123)
        #expect(server.url("/a/b.jpg").absoluteString == "http://127.0.0.1:8123/a/b.jpg")
        #expect(server.url("a.jpg?v=2").absoluteString == "http://127.0.0.1:8123/a.jpg?v=2")
        #expect(server.url(for: ImageSpec(format: .gif, width: 2, height: 3, seed: 4)).path == "/gen/4-2x3.gif")
    }
}
