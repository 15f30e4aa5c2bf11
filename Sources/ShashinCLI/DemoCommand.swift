import ArgumentParser
import Foundation
import ImageServer
import Shashin

/// `shashin demo`: a headless feed scrolled by a script against the embedded ImageServer, once
/// per strategy (naive, the pipeline alone, the pipeline with the scroll-aware display layer),
/// with the metrics, as text or JSON, and pictures of the final screens and the timelines.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Scroll a headless feed with three loading strategies over a real loopback server; compare and draw them."
    )

    @Option(help: "Rows in the feed.")
    var rows = 500

    @Option(help: "Rows on screen.")
    var viewport = 8

    @Option(help: "Longest side of each cell's image, in pixels.")
    var thumbnail = 96

    @Option(help: "Server latency before each response, in milliseconds.")
    var latency = 150

    @Option(help: "Bandwidth of each response, in kilobytes per second (0: unlimited).")
    var bandwidth = 600

    @Option(help: "Downloads at once in the pipeline.")
    var maxConcurrentDownloads = 6

    @Option(help: "Shashin strategy: rows per second above which scrolling defers network work.")
    var fastScrollVelocity = VisibleItemsLoader<Int>.Policy().fastScrollVelocity

    @Option(help: "Shashin strategy: rows prefetched ahead in the scroll direction (0: none).")
    var prefetchDistance = VisibleItemsLoader<Int>.Policy().prefetchDistance

    @Option(help: "Strategies to run, comma-separated: naive, pipeline, shashin.")
    var strategies = "naive,pipeline,shashin"

    @Option(help: "Folder for the pictures (final screens and timelines).")
    var out = "demo-output"

    @Option(help: "The server's port, fixed so a second run asks for the same URLs and finds them on disk (0: any free port).")
    var port = 47810

    @Option(help: "Folder of the pipeline strategies' disk caches, one subfolder each (default: <out>/cache).")
    var cacheDir: String?

    @Flag(help: "Run the pipeline strategies without disk caches.")
    var noDiskCache = false

    @Flag(help: "Write no pictures.")
    var noPictures = false

    @Flag(help: "Print the report as one JSON object keyed by strategy on standard output.")
    var json = false

    func validate() throws {
        guard rows >= viewport, viewport >= 1, thumbnail >= 8, latency >= 0, bandwidth >= 0, maxConcurrentDownloads >= 1 else {
            throw ValidationError("Needs rows ≥ viewport ≥ 1, a thumbnail of at least 8 px, and non-negative network settings.")
        }
        _ = try kinds()
    }

    private func kinds() throws -> [FeedStrategyKind] {
        try strategies.split(separator: ",").map {
            guard let kind = FeedStrategyKind(rawValue: $0.trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("Unknown strategy \($0); choose from naive, pipeline, shashin.")
            }
            return kind
        }
    }

    func run() async throws {
        try await FeedDemo(command: self, kinds: try kinds()).run()
    }

    /// The demo's work, on the main actor: the display layer lives there, as in an app.
    @MainActor
    private struct FeedDemo {
        let command: DemoCommand
        let kinds: [FeedStrategyKind]

        func run() async throws {
            let script = FeedScript.standard
            let catalog = FeedCatalog(rows: command.rows, thumbnailSize: command.thumbnail)
            let server = try await startServer()
            server.latency = .milliseconds(command.latency)
            server.bytesPerSecond = command.bandwidth > 0 ? command.bandwidth * 1000 : nil

            let reach = min(command.rows, Int(script.maxOffset.rounded(.up)) + command.viewport + 20)
            note("Generating the images of rows 0–\(reach - 1)…")
            try await server.generator.pregenerate(catalog.specs.prefix(reach))
            var encodedBytes: [Int: Int] = [:]
            for row in 0..<reach { encodedBytes[row] = try await server.generator.data(for: catalog.specs[row]).count }
            // Every tenth row says `no-cache`: a disk cache must ask before using it (a 304 then).
            for row in stride(from: 9, to: reach, by: 10) {
                var script = RouteScript.image(catalog.specs[row], headers: ["Cache-Control": "no-cache", "ETag": "\"row-\(row)\""])
                script.latency = server.latency
                script.bytesPerSecond = server.bytesPerSecond
                server.setRoute(catalog.url(of: row, on: server).path, script)
            }

            var recordings: [FeedRecording] = []
            var screens: [FeedPictures.Screen] = []
            for kind in kinds {
                note("Scrolling with the \(kind.rawValue) strategy (\(String(format: "%.1f", script.duration)) s)…")
                let strategy = try makeStrategy(kind, catalog: catalog, server: server)
                let run = FeedRun(strategy: strategy, script: script, rows: command.rows, viewportRows: command.viewport, server: server)
                let recording = try await run.run()
                recordings.append(recording)
                screens.append(FeedPictures.Screen(strategy: kind.rawValue, rows: run.finalScreen))
            }
            let address = server.baseURL.absoluteString
            await server.stop()

            // The truth: each row shown anywhere, decoded straight from its bytes, outside every strategy.
            var truth: [Int: UInt64] = [:]
            let shownRows = Set(recordings.flatMap { $0.imageEvents.map(\.row) })
            for row in shownRows.sorted() {
                let data = try await server.generator.data(for: catalog.specs[row])
                truth[row] = try FeedCatalog.decode(data, thumbnail: catalog.thumbnail).fingerprint
            }

            let metrics = recordings.map {
                ($0.strategy, FeedMetrics($0, script: script, rows: command.rows, viewportRows: command.viewport,
                                          truth: truth, encodedBytes: encodedBytes))
            }
            var pictures: [String] = []
            if !command.noPictures {
                let folder = URL(fileURLWithPath: command.out, isDirectory: true)
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let encoder = PlatformImageEncoder()
                for (name, bitmap) in [
                    ("final-screens.png", FeedPictures.finalScreens(screens, truth: truth, cellSize: command.thumbnail)),
                    ("timelines.png", FeedPictures.timelines(recordings, script: script, truth: truth)),
                ] {
                    let file = folder.appendingPathComponent(name)
                    try encoder.encode(bitmap, as: .png, quality: 1).write(to: file)
                    pictures.append(file.path)
                }
            }
            let report = FeedReport(
                settings: .init(rows: command.rows, viewportRows: command.viewport, thumbnailPixels: command.thumbnail,
                                latencyMs: command.latency, bytesPerSecondPerResponse: command.bandwidth * 1000,
                                maxConcurrentDownloads: command.maxConcurrentDownloads, scriptSeconds: script.duration,
                                server: address, diskCache: command.noDiskCache ? nil : cacheFolder.path),
                strategies: metrics, pictures: pictures)
            print(command.json ? report.json : report.text)
        }

        private var cacheFolder: URL {
            URL(fileURLWithPath: command.cacheDir ?? (command.out + "/cache"), isDirectory: true)
        }

        /// The server on the fixed port, so URLs (and disk-cache keys) stay the same from run to
        /// run; on any free port when that one is taken.
        private func startServer() async throws -> ImageServer {
            let server = ImageServer(port: command.port)
            do {
                try await server.start()
                return server
            } catch where command.port != 0 {
                note("Port \(command.port) is taken; using any free port (the disk caches will not match earlier runs).")
                let other = ImageServer()
                try await other.start()
                return other
            }
        }

        private func makeStrategy(_ kind: FeedStrategyKind, catalog: FeedCatalog, server: ImageServer) throws -> any FeedStrategy {
            var configuration = ImagePipeline.Configuration()
            configuration.dataLoader = URLSessionDataLoader()
            configuration.maxConcurrentDownloads = command.maxConcurrentDownloads
            if !command.noDiskCache, kind != .naive {
                configuration.diskCache = try DiskCache(directory: cacheFolder.appendingPathComponent(kind.rawValue, isDirectory: true))
            }
            let pipeline = ImagePipeline(configuration: configuration)
            switch kind {
            case .naive: return NaiveFeedStrategy(catalog: catalog, server: server)
            case .pipeline: return PipelineFeedStrategy(catalog: catalog, server: server, pipeline: pipeline)
            case .shashin:
                var policy = VisibleItemsLoader<Int>.Policy()
                policy.fastScrollVelocity = command.fastScrollVelocity
                policy.prefetchDistance = command.prefetchDistance
                return ShashinFeedStrategy(catalog: catalog, server: server, pipeline: pipeline, policy: policy)
            }
        }

        private func note(_ text: String) {
            FileHandle.standardError.write(Data((text + "\n").utf8))
        }
    }
}
