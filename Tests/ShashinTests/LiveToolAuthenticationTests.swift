import Foundation
import ImageServer
import Shashin
import Testing

/// `shashin fetch --user` and `shashin http get --user`, run as a user would.
@Suite("shashin fetch and http get with --user")
struct LiveToolAuthenticationTests {
    @Test(arguments: ["asynchttpclient", "urlsession"])
    func fetchAnswersADigestChallengeAndSaysSo(loader: String) async throws {
        let server = ImageServer()
        try await server.start()
        var script = RouteScript.image(ImageSpec(format: .png, width: 8, height: 8, seed: 4))
        script.authentication = .digest(user: "ann", password: "se:cret", realm: "photos")
        server.setRoute("/d.png", script)
        let output = try await LiveToolTests.run(["fetch", server.url("/d.png").absoluteString, "--user", "ann:se:cret",
                                                  "--loader", loader])
        #expect(output.contains("8×8"))
        #expect(output.contains("authentication: answered Digest realm=\"photos\""))
        #expect(server.authenticatedRequests(for: "/d.png") == 1)

        let refused = try await LiveToolTests.execute(["fetch", server.url("/d.png").absoluteString, "-u", "ann:wrong",
                                                       "--loader", loader])
        #expect(refused.status != 0)
        #expect(refused.errorOutput.contains("401"))
        await server.stop()
    }

    @Test func httpGetAnswersABasicChallengeAndSaysSo() async throws {
        let server = ImageServer()
        try await server.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var script = RouteScript.image(ImageSpec(format: .png, width: 8, height: 8, seed: 5))
        script.authentication = .basic(user: "ann", password: "secret", realm: "files")
        server.setRoute("/b.png", script)
        let url = server.url("/b.png").absoluteString
        let output = try await LiveToolTests.run(["http", "get", url, "-u", "ann:secret", "--cache-dir", folder.path])
        #expect(output.hasPrefix("HTTP 200"))
        #expect(output.contains("authentication: answered Basic realm=\"files\""))
        let anonymous = try await LiveToolTests.run(["http", "get", url, "--cache-dir", folder.path])
        #expect(anonymous.hasPrefix("HTTP 401"))
        #expect(!anonymous.contains("authentication: answered"))
        await server.stop()
    }
}
