import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import ImageServer

@Suite("Connection drops")
struct ConnectionDropTests {
    static let body = Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    static let paths = (0..<200).map { "/row/\($0).bin" }

    /// Serves every path of `paths` with `body`.
    static func routeAll(_ server: ImageServer) {
        for path in paths { server.setRoute(path, .data(body)) }
    }

    /// GETs each path once, in `order`, on one session; returns the paths whose fetch failed.
    static func failedPaths(_ server: ImageServer, order: [String]) async -> Set<String> {
        let session = makeSession()
        defer { session.invalidateAndCancel() }
        var failed = Set<String>()
        for path in order {
            do {
                let (data, response) = try await fetch(server.url(path), session: session)
                if response.statusCode != 200 || data != body { failed.insert(path) }
            } catch {
                failed.insert(path)
            }
        }
        return failed
    }

    @Test func aSeededRateDropsTheRequestsItsSeedPicks() async throws {
        let drops = ConnectionDrops(rate: 0.05, seed: 3, points: [.midBody])
        let expected = Set(Self.paths.filter { drops.drop(path: $0, ordinal: 1) != nil })
        // 5 % of 200 is 10; a fair draw lands within this band (±3 standard deviations).
        #expect((2...19).contains(expected.count))
        try await withServer { server in
            Self.routeAll(server)
            server.connectionDrops = drops
            let failed = await Self.failedPaths(server, order: Self.paths)
            #expect(failed == expected)
            #expect(server.droppedRequests == expected.count)
            #expect(server.totalRequests == Self.paths.count)
            #expect(await eventually { server.inFlight == 0 })
            for path in Self.paths {
                let sent = server.bytesSent(for: path)
                if expected.contains(path) {
                    // Headers, then part of the body, then the close: never the whole body.
                    #expect(sent < Self.body.count, "\(path)")
                    #expect(server.responseCount(for: path, status: 200) == 1, "\(path)")
                } else {
                    #expect(sent == Self.body.count, "\(path)")
                }
            }
        }
    }

    @Test func theSameSeedDropsTheSameRequestsInAnyOrder() async throws {
        try await withServer { server in
            Self.routeAll(server)
            server.connectionDrops = ConnectionDrops(rate: 0.05, seed: 11, points: [.midBody])
            let forward = await Self.failedPaths(server, order: Self.paths)
            server.resetCounters()
            let backward = await Self.failedPaths(server, order: Self.paths.reversed())
            #expect(!forward.isEmpty)
            #expect(forward == backward)
            // Another seed picks other requests.
            server.resetCounters()
            server.connectionDrops = ConnectionDrops(rate: 0.05, seed: 12, points: [.midBody])
            #expect(await Self.failedPaths(server, order: Self.paths) != forward)
        }
    }

    @Test func aRepeatedRequestDrawsItsOwnFate() async throws {
        let drops = ConnectionDrops(rate: 0.05, seed: 5, points: [.midBody])
        // A path whose first request is dropped and whose second is served: a retry gets through.
        let path = try #require(Self.paths.first { drops.drop(path: $0, ordinal: 1) != nil && drops.drop(path: $0, ordinal: 2) == nil })
        try await withServer { server in
            server.setRoute(path, .data(Self.body))
            server.connectionDrops = drops
            let session = makeSession()
            defer { session.invalidateAndCancel() }
            await #expect(throws: (any Error).self) { try await fetch(server.url(path), session: session) }
            let (data, _) = try await fetch(server.url(path), session: session)
            #expect(data == Self.body)
            #expect(server.droppedRequests == 1)
            #expect(server.requestCount(for: path) == 2)
        }
    }

    @Test func aDropBeforeTheResponseSendsNoByte() async throws {
        try await withServer { server in
            server.setRoute("/a.bin", .data(Self.body))
            server.connectionDrops = ConnectionDrops(rate: 1, seed: 1, points: [.beforeResponse])
            // A fresh session: its connection is new, so the client cannot take the close for a
            // stale keep-alive connection and send the request again.
            let session = makeSession()
            defer { session.invalidateAndCancel() }
            await #expect(throws: (any Error).self) { try await fetch(server.url("/a.bin"), session: session) }
            #expect(await eventually { server.inFlight == 0 })
            #expect(server.bytesSent == 0)
            #expect(server.responseCount(for: "/a.bin", status: 200) == 0)
            #expect(server.droppedRequests == server.requestCount(for: "/a.bin"))
            #expect(server.droppedRequests >= 1)
        }
    }

    @Test func generatedImagesAreDroppedTooAndARouteFaultWins() async throws {
        try await withServer { server in
            server.connectionDrops = ConnectionDrops(rate: 1, seed: 2, points: [.midBody])
            await #expect(throws: (any Error).self) { try await fetch(server.url("/gen/1-64x64.png")) }
            #expect(server.droppedRequests == 1)
            server.setRoute("/broken", .status(503, text: "busy"))
            server.updateRoute("/broken") { $0.fault = .status500 }
            let (_, response) = try await fetch(server.url("/broken"))
            #expect(response.statusCode == 500)
            #expect(server.droppedRequests == 1)
        }
    }

    @Test func rateIsClamped() {
        #expect(ConnectionDrops(rate: 2).rate == 1)
        #expect(ConnectionDrops(rate: -1).rate == 0)
        #expect(ConnectionDrops(rate: .nan).rate == 0)
        #expect(ConnectionDrops(rate: 0, seed: 9).drop(path: "/a", ordinal: 1) == nil)
        #expect(ConnectionDrops(rate: 1, seed: 9).drop(path: "/a", ordinal: 1) != nil)
    }
}
