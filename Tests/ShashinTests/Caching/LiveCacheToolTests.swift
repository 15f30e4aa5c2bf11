import Foundation
import ImageServer
import Shashin
import Testing

/// `shashin fetch --cache-key` and `shashin cache show|remove|export`, run as a user would.
@Suite("shashin fetch --cache-key; cache show, remove and export")
struct LiveCacheToolTests {
    @Test("two signed URLs under one --cache-key download once; the entry is shown, exported and removed by key or URL")
    func cacheKeyFromTheShell() async throws {
        let server = ImageServer()
        try await server.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let exported = FileManager.default.temporaryDirectory.appendingPathComponent("shashin-export-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: exported) }
        let spec = ImageSpec(format: .jpeg, width: 32, height: 24, seed: 7)
        server.setRoute("/signed.jpg", RouteScript.image(spec, headers: ["Cache-Control": "max-age=600"]))
        let fetch = { (signature: String) in
            try await LiveToolTests.run(["fetch", server.url("/signed.jpg?Signature=\(signature)").absoluteString,
                                         "--cache-dir", folder.path, "--cache-key", "photo 42/ü"])
        }
        let first = try await fetch("a")
        #expect(first.contains("from network") && first.contains("cache key: image-id:photo%2042/%C3%BC"))
        #expect(try await fetch("b").contains("from disk"))
        #expect(server.requestCount(for: "/signed.jpg") == 1)

        let shown = try await LiveToolTests.run(["cache", "show", "--dir", folder.path, "photo 42/ü"])
        #expect(shown.contains("key: image-id:photo%2042/%C3%BC") && shown.contains("status: 200") && shown.contains("format: jpeg"))
        // The key as `cache list` prints it names the same entry.
        #expect(try await LiveToolTests.run(["cache", "show", "--dir", folder.path, "image-id:photo%2042/%C3%BC"]).contains("status: 200"))
        _ = try await LiveToolTests.run(["cache", "export", "--dir", folder.path, "photo 42/ü", "-o", exported.path])
        #expect(try Data(contentsOf: exported) == (try await ImageGenerator.shared.data(for: spec)))
        #expect(try await LiveToolTests.run(["cache", "remove", "--dir", folder.path, "photo 42/ü"]).contains("removed 1 entry"))
        #expect(try await LiveToolTests.execute(["cache", "show", "--dir", folder.path, "photo 42/ü"]).status == 1)

        // By URL: a fetch without a key is filed under its URL, and removed by it.
        let plain = server.url("/signed.jpg").absoluteString
        _ = try await LiveToolTests.run(["fetch", plain, "--cache-dir", folder.path, "--thumbnail", "8"])
        #expect(try await LiveToolTests.run(["cache", "show", "--dir", folder.path, plain]).contains("key: \(plain)"))
        #expect(try await LiveToolTests.run(["cache", "remove", "--dir", folder.path, plain]).contains("removed 1 entry"))
        #expect(try await LiveToolTests.run(["cache", "stats", "--dir", folder.path]).contains("entries: 0"))
        await server.stop()
    }
}
