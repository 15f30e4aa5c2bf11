// swift-log is the Linux logger's backend; on Apple platforms it writes to os.Logger.
#if canImport(Logging)
import Foundation
import Logging
import Shashin
import Testing

/// `ImagePipelineLogger` writes every task's life to swift-log: a started and a finished line for
/// a load, a warning for a failure, nothing for progress above `trace`.
@Suite("The pipeline's logger writes to swift-log")
struct PipelineLoggerTests {
    /// A handler that keeps every line it is given.
    struct Capture: LogHandler {
        let lines: Locked<[(Logger.Level, String)]>
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            lines.withLock { $0.append((event.level, "\(event.message)")) }
        }
    }

    @Test func aLoadAndAFailureAreLoggedAtTheirLevels() async throws {
        let lines = Locked<[(Logger.Level, String)]>([])
        var logger = Logger(label: "test") { _ in Capture(lines: lines) }
        logger.logLevel = .debug
        let fixture = try await LiveFixture.start(.asyncHTTPClient) { $0.observer = ImagePipelineLogger(logger: logger) }
        let good = fixture.serveImage("/good.jpg")
        fixture.server.setRoute("/missing.jpg", .status(404, text: "nope"))
        _ = try await fixture.pipeline.image(for: good)
        _ = try? await fixture.pipeline.image(for: fixture.server.url("/missing.jpg"))
        try await waitFor { lines.current.count(where: { $0.1.contains("finished") || $0.1.contains("failed") }) == 2 }
        let logged = lines.current
        #expect(logged.contains { $0.0 == .debug && $0.1.hasSuffix("started") && $0.1.contains("good.jpg") })
        #expect(logged.contains { $0.0 == .debug && $0.1.contains("good.jpg") && $0.1.contains("finished from its source in") })
        #expect(logged.contains { $0.0 == .warning && $0.1.contains("missing.jpg") && $0.1.hasSuffix("failed: HTTP status 404 (Not Found)") })
        #expect(!logged.contains { $0.0 == .trace }, "the logger's level keeps progress out")
        try await fixture.finish()
    }
}
#endif
