import Foundation
import ImageServer
import Shashin
import Testing

/// The `shashin` tool's commands, run as a user would, against ImageServer and files.
@Suite("shashin http get, cache, generate and fetch")
struct LiveToolTests {
    /// What a finished `shashin` process left: its exit status and what it printed on each stream.
    struct Outcome {
        var status: Int32
        var output: String
        var errorOutput: String
    }

    /// Runs `shashin arguments…` (waiting on a thread of its own, not the Swift pool the server
    /// runs on) and returns how it ended and what it printed.
    static func execute(_ arguments: [String]) async throws -> Outcome {
        try await offThePool { () throws -> Outcome in
            let process = Process()
            process.executableURL = try DiskCacheCrashTests.executable("shashin")
            process.arguments = arguments
            let out = Pipe()
            process.standardOutput = out
            // Standard error goes to a file, so neither stream can fill a pipe and stall the tool.
            let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("shashin-stderr-\(UUID().uuidString)")
            guard FileManager.default.createFile(atPath: errorFile.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: errorFile.path])
            }
            defer { try? FileManager.default.removeItem(at: errorFile) }
            let errorHandle = try FileHandle(forWritingTo: errorFile)
            defer { try? errorHandle.close() }
            process.standardError = errorHandle
            try process.run()
            let output = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return Outcome(status: process.terminationStatus, output: String(decoding: output, as: UTF8.self),
                           errorOutput: String(decoding: try Data(contentsOf: errorFile), as: UTF8.self))
        }
    }

    /// Runs `shashin arguments…`, expects it to succeed, and returns what it printed.
    static func run(_ arguments: [String]) async throws -> String {
        let outcome = try await execute(arguments)
        #expect(outcome.status == 0, "shashin \(arguments.joined(separator: " ")): \(outcome.errorOutput)")
        return outcome.output
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
        _ = try await get("/fresh.png")
        #expect(try await Self.run(["cache", "clear", "--dir", folder.path]).contains("removed 1 entry "))
        await server.stop()
    }

    @Test("generate takes the format from the output's extension and refuses one that contradicts --format")
    func generateFormatFromExtension() async throws {
        let folder = temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = folder.appendingPathComponent("x.png")
        _ = try await Self.run(["generate", "--width", "16", "--height", "8", "-o", png.path])
        #expect(ImageFormat(sniffing: try Data(contentsOf: png)) == .png)

        let webp = folder.appendingPathComponent("x.webp")
        _ = try await Self.run(["generate", "--format", "webp", "--width", "16", "--height", "8", "-o", webp.path])
        #expect(ImageFormat(sniffing: try Data(contentsOf: webp)) == .webp)

        let mismatch = folder.appendingPathComponent("y.png")
        let refused = try await Self.execute(["generate", "--format", "jpeg", "--width", "16", "--height", "8", "-o", mismatch.path])
        #expect(refused.status != 0)
        #expect(refused.errorOutput.contains("--format jpeg does not match the extension"))
        #expect(!FileManager.default.fileExists(atPath: mismatch.path))

        let unknown = try await Self.execute(["generate", "-o", folder.appendingPathComponent("z.bin").path])
        #expect(unknown.status != 0)
        #expect(unknown.errorOutput.contains("Cannot tell the format"))
    }

    @Test("fetch --cache-dir: a download cut off in one run resumes in the next, and says so")
    func fetchResumesAcrossRuns() async throws {
        let server = ImageServer()
        try await server.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let image = try await server.generator.data(for: ImageSpec(format: .png, width: 600, height: 400, seed: 5))
        var script = RouteScript.data(image, contentType: "image/png", headers: ["ETag": "\"r1\""])
        script.servesRanges = true
        script.fault = .dropConnectionMidBody
        server.setRoute("/cut.png", script)
        let url = server.url("/cut.png").absoluteString
        let cut = try await Self.execute(["fetch", url, "--cache-dir", folder.path])
        #expect(cut.status != 0)
        // What arrived of the half the server sent: all of it with URLSession; AsyncHTTPClient (the
        // default loader on Linux) loses what it had read but not handed over when the connection closed.
        let keptLine = try #require(cut.output.split(separator: "\n").first { $0.hasPrefix("kept ") }, "\(cut.output)")
        let kept = try #require(Int(keptLine.split(separator: " ")[1]))
        #expect(kept > 0 && kept <= image.count / 2)
        #expect(keptLine == "kept \(kept) of \(image.count) bytes; the next fetch resumes from there")
        server.updateRoute("/cut.png") { $0.fault = nil }
        let resumed = try await Self.run(["fetch", url, "--cache-dir", folder.path])
        #expect(resumed.contains("600×400, from network"))
        #expect(resumed.contains("resumed from byte \(kept) of \(image.count)"), "\(resumed)")
        #expect(server.responseCount(for: "/cut.png", status: 206) == 1)
        await server.stop()
    }

    @Test("fetch says a file URL came from a file, and names an output extension it cannot write")
    func fetchFileAndUnsupportedOutput() async throws {
        let folder = temporaryFolder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("source.png")
        _ = try await Self.run(["generate", "--width", "20", "--height", "10", "-o", source.path])

        let fetched = try await Self.run(["fetch", source.absoluteString, "-o", folder.appendingPathComponent("out.webp").path])
        #expect(fetched.contains("20×10, from file,"))

        let refused = try await Self.execute(["fetch", source.absoluteString, "-o", folder.appendingPathComponent("out.bmp").path])
        #expect(refused.status != 0)
        #expect(refused.errorOutput.contains("Cannot write .bmp files"))
        #expect(!refused.errorOutput.contains("SUBCOMMANDS"))
    }

    @Test("fetch --low-data --constrained loads the low-data URL, never the image's own, and says so")
    func fetchLowData() async throws {
        let server = ImageServer()
        try await server.start()
        server.setRoute("/full.png", .image(ImageSpec(format: .png, width: 300, height: 200, seed: 1)))
        server.setRoute("/small.png", .image(ImageSpec(format: .png, width: 60, height: 40, seed: 2)))
        let full = server.url("/full.png").absoluteString, small = server.url("/small.png").absoluteString
        let constrained = try await Self.run(["fetch", full, "--low-data", small, "--constrained"])
        #expect(constrained.contains("60×40, from network"), "\(constrained)")
        #expect(constrained.contains("low data: \(small) (the network is constrained)"))
        #expect(server.requestCount(for: "/full.png") == 0)
        let open = try await Self.run(["fetch", full, "--low-data", small])
        #expect(open.contains("300×200, from network") && !open.contains("low data"), "\(open)")
        #expect(server.requestCount(for: "/full.png") == 1 && server.requestCount(for: "/small.png") == 1)
        await server.stop()
    }

    @Test("fetch of a video says on Linux that video is not supported there")
    func fetchVideo() async throws {
        let server = ImageServer()
        try await server.start()
        server.setRoute("/clip.mp4", .data(LiveVideoTests.mp4Shaped, contentType: "video/mp4"))
        let outcome = try await Self.execute(["fetch", server.url("/clip.mp4").absoluteString])
        #expect(outcome.status != 0)
        #if os(Linux)
        #expect(outcome.errorOutput.contains("mp4 video, and video is not supported on Linux"), "\(outcome.errorOutput)")
        #else
        #expect(outcome.errorOutput.contains("Failed to take a frame of the mp4 video"), "\(outcome.errorOutput)")
        #endif
        await server.stop()
    }
}
