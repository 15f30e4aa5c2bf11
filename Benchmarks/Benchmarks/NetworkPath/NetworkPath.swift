// The network path without decoding: 2,000 distinct URLs of ~50 KB JPEGs (600×450) from an in-process
// ImageServer on 127.0.0.1, through `pipeline.data(for:)` (a fresh pipeline per iteration, no
// memory cache, 6 downloads at once) against `URLSessionDataLoader` used directly by a task group
// that keeps 6 requests in flight (the baseline).
//
// Goal (pipeline-foundation issue): the pipeline reaches at least 0.9× the direct loader's
// throughput.
//
// The pipeline side submits all 2,000 requests at once and lets its network queue hold them to 6,
// as an app scrolling a long list would. Every URL is distinct (a query string on one of 20
// generated images), so nothing coalesces; the images are encoded before measuring starts. Each
// side gets a fresh `URLSessionDataLoader` (its own URLSession) per iteration, and both sides run
// in every iteration, alternating which goes first, so drift on a shared machine hits both alike.

import Benchmark
import Foundation
import ImageServer
import Shashin
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The server and the 2,000 URLs, shared by every iteration.
struct NetworkFixture: Sendable {
    static let requestCount = 2_000
    static let concurrency = 6
    /// 20 images of 600×450 pixels: 42–55 KB each as JPEG at quality 0.85, 50 KB on average.
    static let specs = (1...20).map { ImageSpec(format: .jpeg, width: 600, height: 450, seed: UInt64($0)) }

    let server: ImageServer
    let urls: [URL]
    let expectedBytes: Int

    static func make() async throws -> NetworkFixture {
        try await ImageGenerator.shared.pregenerate(specs)
        var sizes: [Int] = []
        for spec in specs { sizes.append(try await ImageGenerator.shared.data(for: spec).count) }
        let server = ImageServer()
        try await server.start()
        var urls: [URL] = []
        var expectedBytes = 0
        for index in 0..<requestCount {
            let spec = specs[index % specs.count]
            urls.append(server.url("\(spec.path)?n=\(index)"))
            expectedBytes += sizes[index % specs.count]
        }
        let fixture = NetworkFixture(server: server, urls: urls, expectedBytes: expectedBytes)
        // One short round of each so connections, the server and the runtime are warm.
        _ = try await fixture.loadThroughPipeline(Array(urls.prefix(60)))
        _ = try await fixture.loadDirectly(Array(urls.prefix(60)))
        return fixture
    }

    /// Every URL through a fresh pipeline's `data(for:)`; returns the bytes received.
    func loadThroughPipeline(_ urls: [URL]) async throws -> Int {
        let loader = URLSessionDataLoader()
        defer { loader.session.finishTasksAndInvalidate() }
        var configuration = ImagePipeline.Configuration()
        configuration.dataLoader = loader
        configuration.memoryCache = nil
        configuration.maxConcurrentDownloads = Self.concurrency
        let pipeline = ImagePipeline(configuration: configuration)
        return try await withThrowingTaskGroup(of: Int.self) { group in
            for url in urls {
                group.addTask { try await pipeline.data(for: ImageRequest(url: url)).0.count }
            }
            var bytes = 0
            for try await count in group { bytes += count }
            return bytes
        }
    }

    /// Every URL through a fresh `URLSessionDataLoader`, 6 in flight; returns the bytes received.
    func loadDirectly(_ urls: [URL]) async throws -> Int {
        let loader = URLSessionDataLoader()
        defer { loader.session.finishTasksAndInvalidate() }
        let maxBytes = ImagePipeline.Configuration().maxResponseBytes
        return try await withThrowingTaskGroup(of: Int.self) { group in
            var pending = urls.makeIterator()
            func addNext() {
                guard let url = pending.next() else { return }
                group.addTask {
                    try await loader.loadData(for: URLRequest(url: url), maxBytes: maxBytes) { _, _ in }.0.count
                }
            }
            for _ in 0..<Self.concurrency { addNext() }
            var bytes = 0
            while let count = try await group.next() {
                bytes += count
                addNext()
            }
            return bytes
        }
    }
}

/// A loader that answers at once with a fixed 50 KB body: what is left when the network costs
/// nothing is the pipeline's own cost per request.
struct InstantLoader: DataLoading {
    let body = Data(repeating: 0xAB, count: 50_000)

    func loadData(for request: URLRequest, maxBytes: Int,
                  progress: @escaping @Sendable (Int64, Int64) -> Void) async throws -> (Data, URLResponse) {
        let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1",
                                       headerFields: ["Content-Length": "\(body.count)"])!
        progress(Int64(body.count), Int64(body.count))
        return (body, response)
    }
}

/// Nanoseconds per request for `urls` through a fresh pipeline on `loader` (all submitted at once).
func pipelineNanosPerRequest(_ urls: [URL], loader: any DataLoading) async throws -> Double {
    var configuration = ImagePipeline.Configuration()
    configuration.dataLoader = loader
    configuration.memoryCache = nil
    configuration.maxConcurrentDownloads = NetworkFixture.concurrency
    let pipeline = ImagePipeline(configuration: configuration)
    let start = DispatchTime.now().uptimeNanoseconds
    try await withThrowingTaskGroup(of: Int.self) { group in
        for url in urls { group.addTask { try await pipeline.data(for: ImageRequest(url: url)).0.count } }
        for try await count in group { blackHole(count) }
    }
    return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(urls.count)
}

/// Nanoseconds per request for `urls` on `loader` called directly, 6 in flight.
func directNanosPerRequest(_ urls: [URL], loader: any DataLoading) async throws -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try await withThrowingTaskGroup(of: Int.self) { group in
        var pending = urls.makeIterator()
        func addNext() {
            guard let url = pending.next() else { return }
            group.addTask { try await loader.loadData(for: URLRequest(url: url), maxBytes: 50 << 20) { _, _ in }.0.count }
        }
        for _ in 0..<NetworkFixture.concurrency { addNext() }
        while let count = try await group.next() {
            blackHole(count)
            addNext()
        }
    }
    return Double(DispatchTime.now().uptimeNanoseconds - start) / Double(urls.count)
}

enum NetworkMetric {
    static let pipeline = BenchmarkMetric.custom("pipeline requests/s", polarity: .prefersLarger, useScalingFactor: false)
    static let direct = BenchmarkMetric.custom("direct requests/s", polarity: .prefersLarger, useScalingFactor: false)
    static let ratio = BenchmarkMetric.custom("pipeline / direct %", polarity: .prefersLarger, useScalingFactor: false)
    static let pipelineNanos = BenchmarkMetric.custom("pipeline ns/request", polarity: .prefersSmaller, useScalingFactor: false)
    static let directNanos = BenchmarkMetric.custom("direct ns/request", polarity: .prefersSmaller, useScalingFactor: false)
    static let overheadNanos = BenchmarkMetric.custom("pipeline - direct ns/request", polarity: .prefersSmaller, useScalingFactor: false)
}

/// Requests per second of one run of `body` over `count` requests; checks every byte arrived.
func requestsPerSecond(_ count: Int, expectedBytes: Int, _ body: () async throws -> Int) async throws -> Double {
    let clock = ContinuousClock()
    var bytes = 0
    let elapsed = try await clock.measure { bytes = try await body() }
    guard bytes == expectedBytes else {
        throw NSError(domain: "NetworkPath", code: 1, userInfo: [NSLocalizedDescriptionKey: "received \(bytes) bytes, expected \(expectedBytes)"])
    }
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return Double(count) / seconds
}

let benchmarks: @Sendable () -> Void = {
    Benchmark(
        "NetworkPath 2000 × 50 KB: pipeline.data(for:) vs URLSessionDataLoader direct, 6 in flight",
        configuration: .init(
            metrics: [NetworkMetric.pipeline, NetworkMetric.direct, NetworkMetric.ratio],
            warmupIterations: 1,
            maxDuration: .seconds(45),
            maxIterations: 7
        ),
        closure: { (benchmark: Benchmark, fixture: NetworkFixture) async throws in
            let count = fixture.urls.count
            let pipelineFirst = benchmark.currentIteration % 2 == 0
            var pipeline = 0.0, direct = 0.0
            if pipelineFirst {
                pipeline = try await requestsPerSecond(count, expectedBytes: fixture.expectedBytes) { try await fixture.loadThroughPipeline(fixture.urls) }
                direct = try await requestsPerSecond(count, expectedBytes: fixture.expectedBytes) { try await fixture.loadDirectly(fixture.urls) }
            } else {
                direct = try await requestsPerSecond(count, expectedBytes: fixture.expectedBytes) { try await fixture.loadDirectly(fixture.urls) }
                pipeline = try await requestsPerSecond(count, expectedBytes: fixture.expectedBytes) { try await fixture.loadThroughPipeline(fixture.urls) }
            }
            benchmark.measurement(NetworkMetric.pipeline, Int(pipeline.rounded()))
            benchmark.measurement(NetworkMetric.direct, Int(direct.rounded()))
            benchmark.measurement(NetworkMetric.ratio, Int((100 * pipeline / direct).rounded()))
        },
        setup: { try await NetworkFixture.make() },
        teardown: nil
    )

    // The same two paths with a loader that answers at once: the pipeline's own cost per request
    // (graph queue hops, job and waiter bookkeeping, the work-queue slot, progress events), which
    // is what it adds to every real download.
    Benchmark(
        "NetworkPath overhead: 2000 requests on an instant loader, pipeline.data(for:) vs loader direct",
        configuration: .init(
            metrics: [NetworkMetric.pipelineNanos, NetworkMetric.directNanos, NetworkMetric.overheadNanos],
            warmupIterations: 2,
            maxDuration: .seconds(5),
            maxIterations: 30
        )
    ) { benchmark in
        let urls = (0..<NetworkFixture.requestCount).map { URL(string: "http://127.0.0.1:9/gen/\($0).jpg")! }
        let loader = InstantLoader()
        do {
            var pipeline = 0.0, direct = 0.0
            if benchmark.currentIteration % 2 == 0 {
                pipeline = try await pipelineNanosPerRequest(urls, loader: loader)
                direct = try await directNanosPerRequest(urls, loader: loader)
            } else {
                direct = try await directNanosPerRequest(urls, loader: loader)
                pipeline = try await pipelineNanosPerRequest(urls, loader: loader)
            }
            benchmark.measurement(NetworkMetric.pipelineNanos, Int(pipeline.rounded()))
            benchmark.measurement(NetworkMetric.directNanos, Int(direct.rounded()))
            benchmark.measurement(NetworkMetric.overheadNanos, Int((pipeline - direct).rounded()))
        } catch {
            benchmark.error("instant-loader run failed: \(error)")
        }
    }
}
