import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import ImageServer

@Suite("Accounting")
struct AccountingTests {
    @Test func countsRequestsPerPath() async throws {
        try await withServer { server in
            server.setRoute("/a", .data(Data([1])))
            server.setRoute("/b", .data(Data([2])))
            let session = makeSession()
            for _ in 0..<3 { _ = try await fetch(server.url("/a"), session: session) }
            _ = try await fetch(server.url("/b?size=2"), session: session)
            #expect(server.requestCount(for: "/a") == 3)
            #expect(server.requestCount(for: "/b") == 1)
            #expect(server.requestCount(for: "/c") == 0)
            #expect(server.totalRequests == 4)
            #expect(server.lastRequest(for: "/b")?.query == [.init(name: "size", value: "2")])
        }
    }

    @Test func recordsTheLastRequestHeadersPerPath() async throws {
        try await withServer { server in
            server.setRoute("/private", .data(Data([1]), headers: ["ETag": "\"e\""]))
            _ = try await fetch(server.url("/private"), headers: ["Authorization": "Bearer first"])
            _ = try await fetch(server.url("/private"), headers: ["Authorization": "Bearer second", "If-None-Match": "\"e\""])
            let last = try #require(server.lastRequest(for: "/private"))
            #expect(last.method == "GET")
            #expect(last.header("authorization") == "Bearer second")
            #expect(last.header("If-None-Match") == "\"e\"")
            #expect(last.ordinal == 2)
        }
    }

    @Test func countsBodyBytesSent() async throws {
        try await withServer { server in
            server.setRoute("/a", .data(Data(count: 1234)))
            server.setRoute("/b", .data(Data(count: 100_000)))
            _ = try await fetch(server.url("/a"))
            _ = try await fetch(server.url("/b"))
            #expect(await eventually { server.bytesSent == 101_234 })
            #expect(server.bytesSent(for: "/a") == 1234)
            #expect(server.bytesSent(for: "/b") == 100_000)
        }
    }

    @Test func maxInFlightReflectsConcurrentSlowRequests() async throws {
        let server = ImageServer()
        try await server.start()
        var script = RouteScript.data(Data([1]))
        script.latency = .seconds(100) // held until the server stops, however slowly the requests arrive
        server.setRoute("/slow", script)
        let session = makeSession(timeout: 120)
        let clients = (0..<5).map { i in Task { try? await fetch(server.url("/slow?i=\(i)"), session: session) } }
        #expect(await eventually(timeout: .seconds(100)) { server.inFlight == 5 })
        #expect(server.maxInFlight == 5)
        await server.stop()
        #expect(server.inFlight == 0)
        #expect(server.maxInFlight == 5)
        for client in clients { _ = await client.value }
    }

    @Test func countsAResponseInFlightUntilItsBodyIsWritten() async throws {
        try await withServer { server in
            // A body of 50 s at this rate: it is still being written whenever the test looks,
            // however late a loaded machine lets it look, until the client goes away.
            var script = RouteScript.data(Data(count: 50_000))
            script.bytesPerSecond = 1_000
            server.setRoute("/throttled", script)
            let client = Task { try await fetch(server.url("/throttled")) }
            #expect(await eventually { server.inFlight == 1 })
            try await Task.sleep(for: .milliseconds(100))
            #expect(server.inFlight == 1)   // the handler returned long ago; the body is still going
            client.cancel()
            _ = await client.result
            #expect(await eventually { server.inFlight == 0 })
        }
    }

    @Test func resetCountersZeroesEverything() async throws {
        try await withServer { server in
            server.setRoute("/a", .data(Data(count: 10)))
            _ = try await fetch(server.url("/a"))
            #expect(await eventually { server.bytesSent == 10 })
            server.resetCounters()
            #expect(server.totalRequests == 0)
            #expect(server.requestCount(for: "/a") == 0)
            #expect(server.bytesSent == 0)
            #expect(server.maxInFlight == 0)
            #expect(server.lastRequest(for: "/a") == nil)
            _ = try await fetch(server.url("/a"))
            #expect(server.requestCount(for: "/a") == 1)
            #expect(server.lastRequest(for: "/a")?.ordinal == 1)
        }
    }
}
