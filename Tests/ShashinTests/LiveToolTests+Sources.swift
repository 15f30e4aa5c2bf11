import Foundation
import ImageServer
import Shashin
import Testing

/// `shashin fetch --attempts N` and `--fallback URL`, run as a user would.
extension LiveToolTests {
    @Test("fetch --attempts 3 gets an image past two 503s; --fallback loads the mirror when the primary is 404")
    func fetchRetriesAndFallsBack() async throws {
        let server = ImageServer()
        try await server.start()
        let image = try await ImageGenerator.shared.data(for: ImageSpec(format: .png, width: 12, height: 10, seed: 3))
        let busy = LiveRetryTests.failing(2, status: 503, then: image, server, "/busy.png")
        let retried = try await Self.run(["fetch", busy.absoluteString, "--attempts", "3"])
        #expect(retried.contains("12×10, from network") && retried.contains("attempts: 3"))
        #expect(server.requestCount(for: "/busy.png") == 3)

        // Without --attempts the first 503 ends it.
        let once = LiveRetryTests.failing(1, status: 503, then: image, server, "/once.png")
        let failed = try await Self.execute(["fetch", once.absoluteString])
        #expect(failed.status == 1 && failed.errorOutput.contains("503") && server.requestCount(for: "/once.png") == 1)

        server.setRoute("/gone.png", .status(404, text: "gone"))
        server.setRoute("/mirror.png", .data(image, contentType: "image/png"))
        let mirror = server.url("/mirror.png").absoluteString
        let fellBack = try await Self.run(["fetch", server.url("/gone.png").absoluteString, "--fallback", mirror])
        #expect(fellBack.contains("12×10") && fellBack.contains("loaded from the fallback \(mirror)"))
        await server.stop()
    }
}
