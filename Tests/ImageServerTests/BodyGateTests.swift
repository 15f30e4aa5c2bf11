import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageServer
import Testing

@Suite("Scripted routes: a body held at stops until released")
struct BodyGateTests {
    @Test func theBodyStopsAtEachOffsetUntilReleasedThenArrivesWhole() async throws {
        try await withServer { server in
            let body = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            let gate = BodyGate(stops: [10_000, 30_000, 60_000]) // the last is past the end: ignored
            var script = RouteScript.data(body)
            script.bodyGate = gate
            server.setRoute("/gated", script)
            let download = Task { try await fetch(server.url("/gated")) }
            for (index, sent) in [10_000, 30_000].enumerated() {
                #expect(await eventually { gate.reachedStops == index + 1 && server.bytesSent(for: "/gated") == sent })
                #expect(server.bytesSent(for: "/gated") == sent) // held there: nothing more goes
                gate.release()
            }
            let (data, response) = try await download.value
            #expect(response.statusCode == 200 && data == body)
            #expect(gate.stops == [10_000, 30_000, 60_000] && gate.reachedStops == 2)
        }
    }

    @Test func stoppingTheServerEndsAResponseHeldAtAStop() async throws {
        let server = ImageServer()
        try await server.start()
        let gate = BodyGate(stops: [100])
        var script = RouteScript.data(Data(count: 1_000))
        script.bodyGate = gate
        server.setRoute("/held", script)
        let download = Task { try? await fetch(server.url("/held")) }
        #expect(await eventually { gate.reachedStops == 1 })
        await server.stop() // returns although the gate is never released
        _ = await download.value
        #expect(server.inFlight == 0)
    }
}
