import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ShashinCore

// `PipelineCostBench [requests] [passes] [window] [data]`: the pipeline's own cost per cold request.
// Each pass loads `requests` distinct URLs with `pipeline.image(for:)`, `window` at a time
// (default 1: one after another, so every hop wakes a thread; more keeps the threads busy),
// through a loader that answers at once with 64 bytes and a decoder that returns a 1×1 image at
// once, with the default memory cache and no disk cache: what is left is the pipeline's
// coordination (tasks, the job graph, the work queues, their thread hops). With `data`, as the
// NetworkPath `overhead` benchmark: `pipeline.data(for:)` (no decoder), a 50 KB answer with one
// progress report, no memory cache, 6 downloads at once. Prints one JSON line per pass with the
// CPU time (user + system, `getrusage`), the wall time and the voluntary context switches per
// request, for the pipeline and for the same loader (and decoder) called directly (`path`). The
// first pass warms up and is not printed. With `hit`: the memory-cache hit, `pipeline.loadImage`
// answering `.cached` for one image among 500 in the memory cache, one call after another on one
// thread (`requests` × 100 calls a pass), against a dictionary behind an `NSLock` looked up with
// the same key (`direct`); the figures are then per call. Built in release by
// `scripts/bench-pipeline-cost`.

/// Answers every request at once with the same body and a 200: 64 bytes for images; for `data`,
/// 50 KB with its `Content-Length` and one progress report, as the NetworkPath `overhead`
/// benchmark's loader does.
struct InstantLoader: DataLoading {
    let body: Data
    let headers: [String: String]?
    let reportsProgress: Bool

    init(dataOnly: Bool) {
        body = Data(repeating: 0xAB, count: dataOnly ? 50_000 : 64)
        headers = dataOnly ? ["Content-Length": "\(body.count)"] : nil
        reportsProgress = dataOnly
    }

    func loadData(for request: URLRequest, maxBytes: Int,
                  progress: @escaping @Sendable (Int64, Int64) -> Void) async throws -> (Data, URLResponse) {
        let url = request.url ?? URL(string: "https://bench.invalid/")!
        let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: headers)!
        if reportsProgress { progress(Int64(body.count), Int64(body.count)) }
        return (body, response)
    }
}

/// Returns the same 1×1 image for any bytes.
struct InstantDecoder: ImageDecoding {
    let image = Bitmap(width: 1, height: 1, pixels: [0, 0, 0, 255])

    func decode(_ data: Data, context: ImageDecodingContext) throws -> PlatformImage { image }
}

struct Pass: Encodable {
    /// `image`: `pipeline.image(for:)`; `data`: `pipeline.data(for:)`, no decoding.
    let mode: String
    /// `pipeline`: `pipeline.image(for:)`; `direct`: the same loader and decoder called in a row,
    /// so the difference between the two is the pipeline's own cost.
    let path: String
    let pass: Int
    let requests: Int
    let window: Int
    let cpuMicrosecondsPerRequest: Double
    let wallMicrosecondsPerRequest: Double
    let voluntarySwitchesPerRequest: Double
}

/// The process's CPU time (user + system) so far, and its voluntary context switches: each is a
/// thread that went to sleep waiting (for work, a lock, a queue), the price of a hop; the count
/// hardly depends on the machine's load, unlike the times.
func usage() -> (cpuSeconds: Double, switches: Int) {
    var usage = rusage()
    // Glibc imports the `who` argument as an Int32 typedef and RUSAGE_SELF as an enum case.
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return (seconds(usage.ru_utime) + seconds(usage.ru_stime), usage.ru_nvcsw)
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let requests = arguments.first ?? 20_000
let passes = arguments.dropFirst().first ?? 5
let window = max(1, arguments.dropFirst(2).first ?? 1)
/// `data`: `pipeline.data(for:)` and the loader alone (no decoding); otherwise images.
let dataOnly = CommandLine.arguments.contains("data")
/// `hit`: memory-cache hits, against a locked dictionary.
let memoryHit = CommandLine.arguments.contains("hit")

var configuration = ImagePipeline.Configuration(decoder: InstantDecoder())
configuration.dataLoader = InstantLoader(dataOnly: dataOnly)
configuration.diskCache = nil
if dataOnly {
    // As the NetworkPath `overhead` benchmark: no memory cache, 6 downloads at once.
    configuration.memoryCache = nil
    configuration.maxConcurrentDownloads = 6
}
let pipeline = ImagePipeline(configuration: configuration)
let encoder = JSONEncoder()
encoder.keyEncodingStrategy = .convertToSnakeCase
encoder.outputFormatting = .sortedKeys

/// CPU time, wall time and voluntary context switches per call, since the stopwatch was made.
typealias Figures = (cpu: Double, wall: Double, switches: Double)

/// Reads the process's usage and the clock when made; `perCall` divides what was spent since.
struct Stopwatch {
    private let start = usage()
    private let wallStart = DispatchTime.now().uptimeNanoseconds

    func perCall(_ count: Int) -> Figures {
        let wall = Double(DispatchTime.now().uptimeNanoseconds - wallStart) / 1e9
        let end = usage()
        let count = Double(count)
        return ((end.cpuSeconds - start.cpuSeconds) / count * 1e6, wall / count * 1e6,
                Double(end.switches - start.switches) / count)
    }
}

/// Loads every URL, `window` at a time, with `load`; the figures per request.
func measure(_ urls: [URL], _ load: @escaping @Sendable (URL) async throws -> Int) async throws -> Figures {
    let stopwatch = Stopwatch()
    try await withThrowingTaskGroup(of: Int.self) { group in
        var next = urls.makeIterator()
        for _ in 0..<window { if let url = next.next() { group.addTask { try await load(url) } } }
        while let width = try await group.next() {
            precondition(width == 1, "the decoder's image")
            if let url = next.next() { group.addTask { try await load(url) } }
        }
    }
    return stopwatch.perCall(urls.count)
}

/// Calls `body` `count` times on this thread; the figures per call.
func measureCalls(_ count: Int, _ body: () -> Bool) -> Figures {
    let stopwatch = Stopwatch()
    for _ in 0..<count { precondition(body(), "expected a hit") }
    return stopwatch.perCall(count)
}

/// Prints a pass's line for each path, times rounded to `timePlaces` and switches to
/// `switchPlaces` (1 / the smallest step).
func report(_ paths: [(String, Figures)], mode: String, pass: Int, calls: Int, window: Int,
            timePlaces: Double, switchPlaces: Double) throws {
    func rounded(_ value: Double, _ places: Double) -> Double { (value * places).rounded() / places }
    for (path, figures) in paths {
        let line = Pass(mode: mode, path: path, pass: pass, requests: calls, window: window,
                        cpuMicrosecondsPerRequest: rounded(figures.cpu, timePlaces),
                        wallMicrosecondsPerRequest: rounded(figures.wall, timePlaces),
                        voluntarySwitchesPerRequest: rounded(figures.switches, switchPlaces))
        print(String(decoding: try encoder.encode(line), as: UTF8.self))
    }
}

if memoryHit {
    let urls = (0..<501).map { URL(string: "https://bench.invalid/hit/\($0).png")! }
    let request = ImageRequest(url: urls[250])
    let key = request.cacheKey
    let lock = NSLock()
    var images: [ImageCacheKey: PlatformImage] = [:]
    // One load each: into the pipeline's memory cache and the baseline's dictionary.
    for url in urls { images[ImageRequest(url: url).cacheKey] = try await pipeline.image(for: url) }
    for pass in 0...passes {
        let viaPipeline = measureCalls(requests * 100) {
            guard case .cached(let response) = pipeline.loadImage(request) else { return false }
            return response.image.pixelWidth == 1
        }
        let direct = measureCalls(requests * 100) {
            lock.lock()
            defer { lock.unlock() }
            return images[key]?.pixelWidth == 1
        }
        guard pass > 0 else { continue }
        try report([("pipeline", viaPipeline), ("direct", direct)], mode: "hit", pass: pass, calls: requests * 100, window: 1,
                   timePlaces: 1000, switchPlaces: 1000)
    }
    exit(0)
}

let loader = InstantLoader(dataOnly: dataOnly)
let decoder = InstantDecoder()
for pass in 0...passes {
    // Distinct URLs in every pass: each request misses the memory cache.
    let urls = (0..<requests).map { URL(string: "https://bench.invalid/\(pass)/\($0).png")! }
    let viaPipeline = try await measure(urls) { url in
        if dataOnly { return try await pipeline.data(for: ImageRequest(url: url)).0.isEmpty ? 0 : 1 }
        return try await pipeline.image(for: url).pixelWidth
    }
    let direct = try await measure(urls) { url in
        let (data, _) = try await loader.loadData(for: URLRequest(url: url), maxBytes: 1 << 20, progress: { _, _ in })
        if dataOnly { return data.isEmpty ? 0 : 1 }
        return try decoder.decode(data, context: ImageDecodingContext(format: nil)).pixelWidth
    }
    guard pass > 0 else { continue }
    try report([("pipeline", viaPipeline), ("direct", direct)], mode: dataOnly ? "data" : "image", pass: pass,
               calls: requests, window: window, timePlaces: 10, switchPlaces: 100)
}
