import ArgumentParser
import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Shashin
import ShashinAsyncHTTPClient

/// `shashin-bench network`: downloads the same URLs through `pipeline.data(for:)` on the
/// AsyncHTTPClient loader, through bare AsyncHTTPClient, and through `pipeline.data(for:)` on the
/// URLSession loader (and the AsyncHTTPClient loader called directly), in one process,
/// alternating the order each round; prints the median
/// requests per second of each, its range, and CPU time per request. With `--thumbnails`, decodes
/// every URL to a 96 px thumbnail through the default pipeline instead (run under `taskset` to
/// compare core counts). `scripts/bench-network.sh` starts the server (nginx) and runs both.
struct BenchNetworkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "network",
        abstract: "Compare the network loaders (and bare AsyncHTTPClient) against a local HTTP server."
    )

    @Option(help: "The server's base URL; files are fetched from <base>/img/<n>.jpg.")
    var base: String

    @Option(help: "Distinct files on the server.")
    var files = 200

    @Option(help: "Distinct URLs (each file under several query strings).")
    var urls = 2_000

    @Option(help: "Requests in flight.")
    var concurrency = 6

    @Option(help: "Measured rounds (medians are over these).")
    var rounds = 5

    @Option(help: "Run only these rows, by number (0 pipeline on AsyncHTTPClient, 1 bare AsyncHTTPClient, 2 pipeline on URLSession, 3 AsyncHTTPClient loader alone), comma-separated; for profiling one row.")
    var only: String?

    @Flag(help: "Decode each image to a 96 px thumbnail through the default pipeline; report images/s only.")
    var thumbnails = false

    func run() async throws {
        guard files > 0, urls > 0, concurrency > 0, rounds > 0 else { throw ValidationError("Counts must be positive.") }
        let list = (0..<urls).compactMap { URL(string: "\(base)/img/\($0 % files).jpg?v=\($0 / files)") }
        if thumbnails {
            try await runThumbnails(list)
        } else {
            try await runLoaders(list)
        }
    }

    private func runThumbnails(_ list: [URL]) async throws {
        var configuration = ImagePipeline.Configuration()
        configuration.memoryCache = nil
        configuration.maxConcurrentDownloads = concurrency
        let pipeline = ImagePipeline(configuration: configuration)
        let thumbnail = ThumbnailOptions(maxPixelSize: 96)
        let run: @Sendable (URL) async throws -> Int = { url in
            let image = try await pipeline.image(for: ImageRequest(url: url, thumbnail: thumbnail))
            return image.pixelWidth
        }
        _ = try await Self.measure(Array(list.prefix(min(list.count, 100))), concurrency: concurrency * 2, run) // warm-up
        var rates: [Double] = []
        for round in 1...rounds {
            let result = try await Self.measure(list, concurrency: concurrency * 2, run)
            rates.append(result.rate)
            print("round \(round): \(Self.format(result.rate)) images/s")
        }
        print("thumbnails: \(configuration.maxConcurrentDecodes) decodes at once (cores this process may use), median \(Self.format(Self.median(rates))) images/s "
              + "(range \(Self.format(rates.min()!))–\(Self.format(rates.max()!)))")
    }

    private func runLoaders(_ list: [URL]) async throws {
        let ahcLoader = AsyncHTTPClientDataLoader()
        let sessionLoader = URLSessionDataLoader()
        let bareClient = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup,
                                    configuration: AsyncHTTPClientDataLoader.clientConfiguration())
        func pipeline(_ loader: any DataLoading) -> ImagePipeline {
            var configuration = ImagePipeline.Configuration()
            configuration.dataLoader = loader
            configuration.memoryCache = nil
            configuration.maxConcurrentDownloads = concurrency
            return ImagePipeline(configuration: configuration)
        }
        let ahcPipeline = pipeline(ahcLoader)
        let sessionPipeline = pipeline(sessionLoader)
        let allModes: [(name: String, run: @Sendable (URL) async throws -> Int)] = [
            ("pipeline.data(for:), AsyncHTTPClient loader", { try await ahcPipeline.data(for: ImageRequest(url: $0)).0.count }),
            ("bare AsyncHTTPClient", { url in
                let response = try await bareClient.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(30))
                return try await response.body.collect(upTo: 1 << 22).readableBytes
            }),
            ("pipeline.data(for:), URLSession loader", { try await sessionPipeline.data(for: ImageRequest(url: $0)).0.count }),
            // The loader alone, to tell its cost from the pipeline's.
            ("AsyncHTTPClient loader alone", { url in
                try await ahcLoader.loadData(for: URLRequest(url: url), maxBytes: 50 << 20) { _, _ in }.0.count
            }),
        ]
        let chosen = try only.map { list in
            try list.split(separator: ",").map { item -> Int in
                guard let index = Int(item), allModes.indices.contains(index) else { throw ValidationError("--only takes row numbers 0–\(allModes.count - 1)") }
                return index
            }
        } ?? Array(allModes.indices)
        let modes = chosen.map { allModes[$0] }
        for mode in modes { _ = try await Self.measure(Array(list.prefix(200)), concurrency: concurrency, mode.run) } // warm-up
        var rates = Array(repeating: [Double](), count: modes.count)
        var cpu = Array(repeating: [Double](), count: modes.count)
        var faults = Array(repeating: [Double](), count: modes.count)
        for round in 0..<rounds {
            let order = round % 2 == 0 ? Array(modes.indices) : modes.indices.reversed()
            for index in order {
                let result = try await Self.measure(list, concurrency: concurrency, modes[index].run)
                rates[index].append(result.rate)
                cpu[index].append(result.cpuMicrosecondsPerRequest)
                faults[index].append(result.pageFaultsPerRequest)
            }
            print("round \(round + 1): " + modes.indices.map { "\(Self.format(rates[$0].last!))" }.joined(separator: " / ") + " req/s")
        }
        let bare = chosen.firstIndex(of: 1).map { Self.median(rates[$0]) } ?? .nan
        print("\(list.count) URLs, \(concurrency) in flight, \(rounds) rounds, alternating order; \(ProcessInfo.processInfo.activeProcessorCount) cores")
        for (index, mode) in modes.enumerated() {
            let median = Self.median(rates[index])
            print("\(mode.name): median \(Self.format(median)) req/s (range \(Self.format(rates[index].min()!))–\(Self.format(rates[index].max()!))), "
                  + "\(String(format: "%.2f", median / bare))× bare AHC, CPU \(Self.format(Self.median(cpu[index]))) µs/request, "
                  + "\(String(format: "%.2f", Self.median(faults[index]))) page faults/request")
        }
        if let ahc = chosen.firstIndex(of: 0), let session = chosen.firstIndex(of: 2) {
            print("AsyncHTTPClient loader / URLSession loader: \(String(format: "%.2f", Self.median(rates[ahc]) / Self.median(rates[session])))×")
        }
        try await ahcLoader.shutdown()
        try await bareClient.shutdown()
    }

    struct Measurement { var rate: Double; var cpuMicrosecondsPerRequest: Double; var pageFaultsPerRequest: Double }

    /// Runs `operation` over `urls` with `concurrency` in flight; every URL must give bytes.
    static func measure(_ urls: [URL], concurrency: Int, _ operation: @escaping @Sendable (URL) async throws -> Int) async throws -> Measurement {
        let before = usage()
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Int.self) { group in
            var next = 0
            for _ in 0..<min(concurrency, urls.count) {
                let url = urls[next]
                next += 1
                group.addTask { try await operation(url) }
            }
            while let count = try await group.next() {
                guard count > 0 else { throw ValidationError("an empty response") }
                if next < urls.count {
                    let url = urls[next]
                    next += 1
                    group.addTask { try await operation(url) }
                }
            }
        }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let after = usage()
        let cpu = after.cpuSeconds - before.cpuSeconds
        let faults = after.pageFaults - before.pageFaults
        return Measurement(rate: Double(urls.count) / seconds, cpuMicrosecondsPerRequest: cpu / Double(urls.count) * 1e6,
                           pageFaultsPerRequest: Double(faults) / Double(urls.count))
    }

    #if canImport(Glibc)
    private static let RUSAGE_SELF_WHO = __rusage_who_t(RUSAGE_SELF.rawValue)
    #else
    private static let RUSAGE_SELF_WHO = RUSAGE_SELF
    #endif

    /// The process's use so far: user plus system CPU seconds, and minor page faults (pages the
    /// kernel had to map in); one `getrusage` for both.
    static func usage() -> (cpuSeconds: Double, pageFaults: Int) {
        var usage = rusage()
        getrusage(RUSAGE_SELF_WHO, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return (seconds(usage.ru_utime) + seconds(usage.ru_stime), Int(usage.ru_minflt))
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    static func format(_ value: Double) -> String { String(Int(value.rounded())) }
}
