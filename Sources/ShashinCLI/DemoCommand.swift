import ArgumentParser
import Foundation
import ImageServer
import Shashin
import ShashinFeed
import ShashinToolSupport

/// `shashin demo`: a headless feed scrolled by a script against the embedded ImageServer, once
/// per strategy (naive, the pipeline alone, the pipeline with the scroll-aware display layer) —
/// or `--rounds` times each in rotating order, reporting medians — with the metrics, as text or
/// JSON, and pictures of the final screens and the timelines.
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

    @OptionGroup var downloads: DownloadsOption

    @OptionGroup var flakyNetwork: FlakyNetworkOption

    @Option(help: "Shashin strategy: rows per second above which scrolling defers network work.")
    var fastScrollVelocity = VisibleItemsLoader<Int>.Policy().fastScrollVelocity

    @Option(help: "Shashin strategy: rows prefetched ahead in the scroll direction (0: none).")
    var prefetchDistance = VisibleItemsLoader<Int>.Policy().prefetchDistance

    @Option(help: "Shashin strategy: seconds before a fling slows below the fast-scroll velocity that its predicted landing starts loading (inf, the default: at the lift; a finite lead saves the bytes of landings a next flick or a catch replaces).")
    var landingLeadTime = VisibleItemsLoader<Int>.Policy().landingLeadTime

    @Option(help: "Shashin strategy: how likely (0–1) a row of a fling's predicted landing must be to be on screen at rest before it loads during the fling (0: the whole window at the lift).")
    var landingThreshold = VisibleItemsLoader<Int>.Policy().landingThreshold

    @Option(help: "Shashin strategy: how far the resting place may fall from the prediction, as a fraction of the distance still to travel (0: the prediction is trusted fully).")
    var landingUncertainty = VisibleItemsLoader<Int>.Policy().landingUncertainty

    @Option(help: "Strategies to run, comma-separated: naive, pipeline, shashin.")
    var strategies = "naive,pipeline,shashin"

    @Option(help: "Times to run each strategy, in a rotating order (naive first, then pipeline first, ...); the report gives medians. Every round starts from the disk caches as they were when the command started.")
    var rounds = 1

    @Option(help: "Folder for the pictures (final screens and timelines).")
    var out = "demo-output"

    @Option(help: "The server's port, fixed so a second run asks for the same URLs and finds them on disk (0: any free port).")
    var port = 47810

    @Option(help: "Folder of the pipeline strategies' disk caches, one subfolder each (default: <out>/cache).")
    var cacheDir: String?

    @Flag(help: "Run the pipeline strategies without disk caches.")
    var noDiskCache = false

    @Flag(help: "Pipeline strategies keep no bytes of cancelled or cut-off downloads: every download starts from byte 0 (the baseline for resuming's figures).")
    var noResume = false

    @Flag(help: "Serve the feed's JPEG rows as progressive JPEGs (at \(DemoCommand.progressiveScale)× the pixel size, so a row's download lasts long enough for its first scans to show) and turn on isProgressiveDecodingEnabled in the pipeline strategies: the timelines show previews in blue. Without it, nothing changes.")
    var progressive = false

    /// How much larger the rows' images are under `--progressive` (each side).
    static let progressiveScale = 2

    @Flag(help: "Write no pictures.")
    var noPictures = false

    /// The JSON report is one object keyed by strategy.
    @OptionGroup var output: JSONOutputOption

    func validate() throws {
        guard rows >= viewport, viewport >= 1, thumbnail >= 8, latency >= 0, bandwidth >= 0,
              rounds >= 1, landingLeadTime >= 0, (0...1).contains(landingThreshold), landingUncertainty >= 0 else {
            throw ValidationError("Needs rows ≥ viewport ≥ 1, a thumbnail of at least 8 px, non-negative network settings, landing lead time and uncertainty, a landing threshold within 0–1, and at least one round.")
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
            let catalog = FeedCatalog(rows: command.rows, thumbnailSize: command.thumbnail, progressive: command.progressive,
                                      scale: command.progressive ? DemoCommand.progressiveScale : 1)
            let server = try await startServer()
            server.latency = .milliseconds(command.latency)
            server.bytesPerSecond = command.bandwidth > 0 ? command.bandwidth * 1000 : nil
            server.connectionDrops = command.flakyNetwork.connectionDrops

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

            // Round r runs the strategies rotated by r, so none always goes first (or last).
            let orders = (0..<command.rounds).map { round in kinds.indices.map { kinds[(round + $0) % kinds.count] } }
            var recordings: [FeedStrategyKind: [FeedRecording]] = [:]
            var screens: [FeedStrategyKind: FeedPictures.Screen] = [:]
            for (round, order) in orders.enumerated() {
                for kind in order {
                    let label = command.rounds > 1 ? "round \(round + 1) of \(command.rounds): " : ""
                    note("\(label)Scrolling with the \(kind.rawValue) strategy (\(String(format: "%.1f", script.duration)) s)…")
                    let (recording, screen) = try await runOnce(kind, round: round, script: script, catalog: catalog, server: server)
                    recordings[kind, default: []].append(recording)
                    screens[kind] = screen // the pictures show the last round
                    try removeRoundCache(of: kind, round: round)
                }
            }
            let address = server.baseURL.absoluteString
            await server.stop()

            // The truth: each row shown anywhere, decoded straight from its bytes, outside every strategy.
            var truth: [Int: UInt64] = [:]
            let everyRecording = recordings.values.flatMap { $0 }
            var shownRows = Set(everyRecording.flatMap { $0.imageEvents.map(\.row) })
            for recording in everyRecording {
                for frame in recording.frames {
                    for (row, state) in frame.rows { if case .image = state { shownRows.insert(row) } }
                }
            }
            for row in shownRows.sorted() {
                let data = try await server.generator.data(for: catalog.specs[row])
                truth[row] = try FeedCatalog.decode(data, thumbnail: catalog.thumbnail).fingerprint
            }

            let metrics = kinds.map { kind in
                (kind.rawValue, FeedMetrics.combining(recordings[kind, default: []].map {
                    FeedMetrics($0, script: script, rows: command.rows, viewportRows: command.viewport,
                                truth: truth, encodedBytes: encodedBytes)
                }))
            }
            let lastRound = kinds.compactMap { recordings[$0]?.last }
            let finalScreens = kinds.compactMap { screens[$0] }
            var pictures: [String] = []
            if !command.noPictures {
                let folder = URL(fileURLWithPath: command.out, isDirectory: true)
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let encoder = PlatformImageEncoder()
                for (name, bitmap) in [
                    ("final-screens.png", FeedPictures.finalScreens(finalScreens, truth: truth, cellSize: command.thumbnail)),
                    ("timelines.png", FeedPictures.timelines(lastRound, script: script, truth: truth)),
                ] {
                    let file = folder.appendingPathComponent(name)
                    try encoder.encode(bitmap.platformImage, as: .png, quality: 1).write(to: file)
                    pictures.append(file.path)
                }
            }
            let report = FeedReport(
                settings: .init(rows: command.rows, viewportRows: command.viewport, thumbnailPixels: command.thumbnail,
                                latencyMs: command.latency, bytesPerSecondPerResponse: command.bandwidth * 1000,
                                maxConcurrentDownloads: command.downloads.maxConcurrentDownloads, scriptSeconds: script.duration,
                                server: address, diskCache: command.noDiskCache ? nil : cacheFolder.path,
                                rounds: command.rounds, orders: orders.map { $0.map(\.rawValue) },
                                progressive: command.progressive ? DemoCommand.progressiveScale : nil,
                                connectionDrops: command.flakyNetwork.connectionDrops.map {
                                    .init(rate: $0.rate, seed: $0.seed, points: $0.points.map(\.rawValue))
                                },
                                retry: command.flakyNetwork.retry),
                strategies: metrics, pictures: pictures)
            print(command.output.json ? report.json : report.text)
        }

        private var cacheFolder: URL {
            URL(fileURLWithPath: command.cacheDir ?? (command.out + "/cache"), isDirectory: true)
        }

        /// Runs one strategy once; its pipeline (and disk cache) is gone when this returns.
        private func runOnce(_ kind: FeedStrategyKind, round: Int, script: FeedScript, catalog: FeedCatalog,
                             server: ImageServer) async throws -> (FeedRecording, FeedPictures.Screen) {
            let (strategy, diskCache) = try makeStrategy(kind, catalog: catalog, server: server,
                                                         cache: try roundCache(of: kind, round: round))
            let run = FeedRun(strategy: strategy, script: script, rows: command.rows, viewportRows: command.viewport, server: server,
                              catalog: catalog)
            let recording = try await run.run()
            diskCache?.flush()
            return (recording, FeedPictures.Screen(strategy: kind.rawValue, rows: run.finalScreen))
        }

        /// The disk cache folder of `kind` in `round`: its own folder in the last round (so the
        /// next run starts from what this one stored), and before that a copy of it; `nil`: no
        /// disk cache.
        private func roundCacheFolder(of kind: FeedStrategyKind, round: Int) -> URL? {
            guard !command.noDiskCache, kind != .naive else { return nil }
            guard round < command.rounds - 1 else { return cacheFolder.appendingPathComponent(kind.rawValue, isDirectory: true) }
            return cacheFolder.appendingPathComponent("\(kind.rawValue).round-\(round + 1)", isDirectory: true)
        }

        /// Makes the folder of a round before the last a copy of the strategy's own folder, which
        /// no round has touched yet: every round starts from the caches the command started with.
        private func roundCache(of kind: FeedStrategyKind, round: Int) throws -> URL? {
            guard let folder = roundCacheFolder(of: kind, round: round) else { return nil }
            guard round < command.rounds - 1 else { return folder }
            let own = cacheFolder.appendingPathComponent(kind.rawValue, isDirectory: true)
            let files = FileManager.default
            if files.fileExists(atPath: folder.path) { try files.removeItem(at: folder) }
            if files.fileExists(atPath: own.path) {
                try files.copyItem(at: own, to: folder)
            } else {
                try files.createDirectory(at: folder, withIntermediateDirectories: true)
            }
            return folder
        }

        /// Removes the copy a round before the last ran on.
        private func removeRoundCache(of kind: FeedStrategyKind, round: Int) throws {
            guard round < command.rounds - 1, let folder = roundCacheFolder(of: kind, round: round) else { return }
            try FileManager.default.removeItem(at: folder)
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

        private func makeStrategy(_ kind: FeedStrategyKind, catalog: FeedCatalog, server: ImageServer,
                                  cache: URL?) throws -> (any FeedStrategy, DiskCache?) {
            var configuration = ImagePipeline.Configuration()
            configuration.dataLoader = URLSessionDataLoader()
            configuration.maxConcurrentDownloads = command.downloads.maxConcurrentDownloads
            let diskCache = try cache.map { try DiskCache(configuration: .init(directory: $0)) }
            configuration.diskCache = diskCache
            if command.noResume { configuration.resumableData = nil }
            configuration.isProgressiveDecodingEnabled = command.progressive
            configuration.retryPolicy = command.flakyNetwork.retryPolicy
            let pipeline = ImagePipeline(configuration: configuration)
            switch kind {
            case .naive: return (NaiveFeedStrategy(catalog: catalog, server: server), nil)
            case .pipeline: return (PipelineFeedStrategy(catalog: catalog, server: server, pipeline: pipeline), diskCache)
            case .shashin:
                var policy = VisibleItemsLoader<Int>.Policy()
                policy.fastScrollVelocity = command.fastScrollVelocity
                policy.prefetchDistance = command.prefetchDistance
                policy.landingLeadTime = command.landingLeadTime
                policy.landingThreshold = command.landingThreshold
                policy.landingUncertainty = command.landingUncertainty
                return (ShashinFeedStrategy(catalog: catalog, server: server, pipeline: pipeline, policy: policy), diskCache)
            }
        }

        private func note(_ text: String) {
            FileHandle.standardError.write(Data((text + "\n").utf8))
        }
    }
}
