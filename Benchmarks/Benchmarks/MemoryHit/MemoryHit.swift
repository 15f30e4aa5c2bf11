// A memory-cache hit: `pipeline.loadImage(request)` answering `.cached` for an image already in
// the pipeline's MemoryCache, against the least a cache can do — a `[ImageCacheKey: Bitmap]`
// lookup behind an NSLock with the same key.
//
// Goal (pipeline-foundation issue): the pipeline's hit costs at most 3× the baseline.
//
// Benchmarks in this suite:
// - "MemoryHit loadImage .cached": the pipeline, ns per hit (wall clock, scaled per call).
// - "MemoryHit baseline Dictionary+NSLock": the baseline, ns per lookup with a precomputed key.
// - "MemoryHit baseline request.cacheKey + Dictionary+NSLock": the baseline that also builds the
//   key from the request on every call, as the pipeline must; the difference to the plain
//   baseline is the cost of the key alone.
// - "MemoryHit ratio": the pipeline and both baselines measured back to back in every iteration
//   (so machine noise hits them alike); custom metrics give ns/op for each and the ratio
//   pipeline ÷ baseline (precomputed key) in percent. This is the number the goal is judged on.

import Benchmark
import Foundation
import Shashin

/// The baseline: a plain dictionary behind a lock, no LRU bookkeeping, no response value.
final class LockedDictionary: @unchecked Sendable { // `storage` behind `lock`
    private let lock = NSLock()
    private var storage: [ImageCacheKey: Bitmap] = [:]

    func insert(_ bitmap: Bitmap, for key: ImageCacheKey) {
        lock.lock(); defer { lock.unlock() }
        storage[key] = bitmap
    }

    func lookup(_ key: ImageCacheKey) -> Bitmap? {
        lock.lock(); defer { lock.unlock() }
        return storage[key]
    }
}

/// One image, cached both in a real pipeline's memory cache and in the baseline dictionary,
/// among a few hundred others so neither lookup runs in an empty table.
struct MemoryHitFixture: @unchecked Sendable {
    let pipeline: ImagePipeline
    let request: ImageRequest
    let key: ImageCacheKey
    let dictionary: LockedDictionary

    init() {
        let cache = MemoryCache(costLimit: 256 << 20)
        var configuration = ImagePipeline.Configuration()
        configuration.memoryCache = cache
        pipeline = ImagePipeline(configuration: configuration)
        dictionary = LockedDictionary()
        // A 256×192 thumbnail, as a list cell would show.
        let bitmap = Bitmap(width: 256, height: 192, pixels: [UInt8](repeating: 128, count: 256 * 192 * 4))
        for index in 0..<500 {
            let other = ImageRequest(url: URL(string: "https://images.example.com/photos/\(index).jpg"),
                                     thumbnail: .init(maxPixelSize: 256))
            cache.store(bitmap, forKey: other.cacheKey)
            dictionary.insert(bitmap, for: other.cacheKey)
        }
        request = ImageRequest(url: URL(string: "https://images.example.com/photos/123.jpg"),
                               thumbnail: .init(maxPixelSize: 256))
        key = request.cacheKey
        guard case .cached = pipeline.loadImage(request), dictionary.lookup(key) != nil else {
            fatalError("the fixture's image is not in memory")
        }
    }

    @inline(__always) func pipelineHit() -> Int {
        guard case .cached(let response) = pipeline.loadImage(request) else { fatalError("expected a memory hit") }
        return response.image.width
    }

    @inline(__always) func baselineHit() -> Int {
        dictionary.lookup(key)!.width
    }

    @inline(__always) func baselineHitBuildingKey() -> Int {
        dictionary.lookup(request.cacheKey)!.width
    }
}

enum RatioMetric {
    static let pipelineNanos = BenchmarkMetric.custom("pipeline ns/op", polarity: .prefersSmaller, useScalingFactor: false)
    static let baselineNanos = BenchmarkMetric.custom("baseline ns/op", polarity: .prefersSmaller, useScalingFactor: false)
    static let baselineWithKeyNanos = BenchmarkMetric.custom("baseline + request.cacheKey ns/op", polarity: .prefersSmaller, useScalingFactor: false)
    static let ratioPercent = BenchmarkMetric.custom("pipeline / baseline %", polarity: .prefersSmaller, useScalingFactor: false)
}

/// Nanoseconds per call of `body`, over `count` calls.
@inline(never)
func nanosPerCall(_ count: Int, _ body: () -> Int) -> Double {
    var sink = 0
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<count { sink &+= body() }
    let elapsed = DispatchTime.now().uptimeNanoseconds - start
    blackHole(sink)
    return Double(elapsed) / Double(count)
}

let benchmarks: @Sendable () -> Void = {
    let fixture = MemoryHitFixture()

    let perCall = Benchmark.Configuration(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: 10,
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 2_000
    )

    Benchmark("MemoryHit loadImage .cached", configuration: perCall) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(fixture.pipelineHit()) }
    }

    Benchmark("MemoryHit baseline Dictionary+NSLock", configuration: perCall) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(fixture.baselineHit()) }
    }

    Benchmark("MemoryHit baseline request.cacheKey + Dictionary+NSLock", configuration: perCall) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(fixture.baselineHitBuildingKey()) }
    }

    Benchmark(
        "MemoryHit ratio (pipeline vs Dictionary+NSLock, interleaved)",
        configuration: .init(
            metrics: [RatioMetric.pipelineNanos, RatioMetric.baselineNanos, RatioMetric.baselineWithKeyNanos, RatioMetric.ratioPercent],
            warmupIterations: 3,
            maxDuration: .seconds(3),
            maxIterations: 60
        )
    ) { benchmark in
        // 20,000 calls of each, alternating which goes first, per iteration.
        let calls = 20_000
        var pipeline = 0.0, baseline = 0.0, baselineWithKey = 0.0
        if benchmark.currentIteration % 2 == 0 {
            pipeline = nanosPerCall(calls, fixture.pipelineHit)
            baseline = nanosPerCall(calls, fixture.baselineHit)
            baselineWithKey = nanosPerCall(calls, fixture.baselineHitBuildingKey)
        } else {
            baselineWithKey = nanosPerCall(calls, fixture.baselineHitBuildingKey)
            baseline = nanosPerCall(calls, fixture.baselineHit)
            pipeline = nanosPerCall(calls, fixture.pipelineHit)
        }
        benchmark.measurement(RatioMetric.pipelineNanos, Int(pipeline.rounded()))
        benchmark.measurement(RatioMetric.baselineNanos, Int(baseline.rounded()))
        benchmark.measurement(RatioMetric.baselineWithKeyNanos, Int(baselineWithKey.rounded()))
        benchmark.measurement(RatioMetric.ratioPercent, Int((100 * pipeline / baseline).rounded()))
    }
}
