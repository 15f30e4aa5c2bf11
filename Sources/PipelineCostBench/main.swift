import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ShashinCore

// `PipelineCostBench [requests] [passes]`: the pipeline's own cost per cold request. Each pass
// loads `requests` distinct URLs one after another with `pipeline.image(for:)`, through a loader
// that answers at once with 64 bytes and a decoder that returns a 1×1 image at once, with the
// default memory cache and no disk cache: what is left is the pipeline's coordination (tasks,
// the job graph, the work queues, their thread hops). Prints one JSON line per pass with the CPU
// time (user + system, `getrusage`) and the wall time per request, in microseconds. The first
// pass warms up and is not printed. Built in release by `scripts/bench-pipeline-cost`.

/// Answers every request at once with the same small body and a 200.
struct InstantLoader: DataLoading {
    let body = Data(repeating: 0xAB, count: 64)

    func loadData(for request: URLRequest, maxBytes: Int,
                  progress: @escaping @Sendable (Int64, Int64) -> Void) async throws -> (Data, URLResponse) {
        let url = request.url ?? URL(string: "https://bench.invalid/")!
        let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: nil)!
        return (body, response)
    }
}

/// Returns the same 1×1 image for any bytes.
struct InstantDecoder: ImageDecoding {
    let image = Bitmap(width: 1, height: 1, pixels: [0, 0, 0, 255])

    func decode(_ data: Data, context: ImageDecodingContext) throws -> PlatformImage { image }
}

struct Pass: Encodable {
    let pass: Int
    let requests: Int
    let cpuMicrosecondsPerRequest: Double
    let wallMicrosecondsPerRequest: Double
}

func cpuSeconds() -> Double {
    var usage = rusage()
    // Glibc imports the `who` argument as an Int32 typedef and RUSAGE_SELF as an enum case.
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let requests = arguments.first ?? 20_000
let passes = arguments.dropFirst().first ?? 5

var configuration = ImagePipeline.Configuration(decoder: InstantDecoder())
configuration.dataLoader = InstantLoader()
configuration.diskCache = nil
let pipeline = ImagePipeline(configuration: configuration)
let encoder = JSONEncoder()
encoder.keyEncodingStrategy = .convertToSnakeCase
encoder.outputFormatting = .sortedKeys

for pass in 0...passes {
    // Distinct URLs in every pass: each request misses the memory cache.
    let urls = (0..<requests).map { URL(string: "https://bench.invalid/\(pass)/\($0).png")! }
    let cpuBefore = cpuSeconds()
    let wallBefore = DispatchTime.now().uptimeNanoseconds
    for url in urls {
        let image = try await pipeline.image(for: url)
        precondition(image.pixelWidth == 1, "the decoder's image")
    }
    let wall = Double(DispatchTime.now().uptimeNanoseconds - wallBefore) / 1e9
    let cpu = cpuSeconds() - cpuBefore
    guard pass > 0 else { continue }
    let line = Pass(pass: pass, requests: requests, cpuMicrosecondsPerRequest: (cpu / Double(requests) * 1e7).rounded() / 10,
                    wallMicrosecondsPerRequest: (wall / Double(requests) * 1e7).rounded() / 10)
    print(String(decoding: try encoder.encode(line), as: UTF8.self))
}
