import Foundation
import ImageServer
import Testing

/// The `shashin` tool's cache commands, run as a user would, against ImageServer.
@Suite("shashin http get and shashin cache")
struct LiveToolTests {
    /// Runs `shashin arguments…` (waiting on a thread of its own, not the Swift pool the server
    /// runs on) and returns what it printed.
    static func run(_ arguments: [String]) async throws -> String {
        let (status, output) = try await offThePool { () throws -> (Int32, Data) in
            let process = Process()
            process.executableURL = try DiskCacheCrashTests.shashinExecutable()
            process.arguments = arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, output)
        }
        #expect(status == 0, "shashin \(arguments.joined(separator: " "))")
        return String(decoding: output, as: UTF8.self)
    }

    @Test("http get: network, then cache; 304 revalidation; cache stats, list and clear")
    func httpGetAndCache() async throws {
        let server = ImageServer()
        try await server.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        server.setRoute("/fresh.png", RouteScript(body: .image(ImageSpec(format: .png, width: 8, height: 8, seed: 1)),
                                                  headers: ["Cache-Control": "max-age=600"]))
        server.setRoute("/etag.png", RouteScript(body: .image(ImageSpec(format: .png, width: 8, height: 8, seed: 2)),
                                                 headers: ["Cache-Control": "no-cache", "ETag": "\"e\""]))
        let get = { (path: String) in try await Self.run(["http", "get", server.url(path).absoluteString, "--cache-dir", folder.path]) }

        let first = try await get("/fresh.png")
        #expect(first.hasPrefix("HTTP 200") && first.contains("source: network"))
        #expect(try await get("/fresh.png").contains("source: cache"))
        #expect(server.requestCount(for: "/fresh.png") == 1)
        _ = try await get("/etag.png")
        #expect(try await get("/etag.png").contains("source: revalidated"))
        #expect(server.lastRequest(for: "/etag.png")?.header("If-None-Match") == "\"e\"")

        let stats = try await Self.run(["cache", "stats", "--dir", folder.path])
        #expect(stats.contains("entries: 2"))
        #expect(try await Self.run(["cache", "list", "--dir", folder.path]).contains(server.url("/etag.png").absoluteString))
        #expect(try await Self.run(["cache", "clear", "--dir", folder.path]).contains("removed 2 entries"))
        #expect(try await Self.run(["cache", "stats", "--dir", folder.path]).contains("entries: 0"))
        await server.stop()
    }
}
