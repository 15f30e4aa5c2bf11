// Decoding a camera-sized JPEG to a list thumbnail: a 4000×3000 JPEG (the ImageServer's
// deterministic photo-like picture, seed 1, quality 0.85, written to a temporary file and read
// back) to a 256 px RGBA bitmap with `VipsImageDecoder`, on one thread and on two threads in
// parallel (throughput).
//
// Goals (pipeline-foundation issue): no slower than Pillow on one core, and close to 2× the
// one-thread throughput on two cores. The Pillow side is `scripts/bench-decode-vs-pillow.sh`,
// which decodes the very same file; this suite gives the in-process numbers and the 2-thread
// scaling, whose baseline is the 1-thread benchmark of the same run.

import Benchmark
import Foundation
import ImageServer
import Shashin

/// The JPEG's bytes, and a decoder set up to make a 256 px thumbnail.
struct DecodeFixture: @unchecked Sendable { // immutable
    static let spec = ImageSpec(format: .jpeg, width: 4000, height: 3000, seed: 1)
    let data: Data
    let decoder = VipsImageDecoder()
    let context = ImageDecodingContext(format: .jpeg, thumbnail: .init(maxPixelSize: 256))

    static func make() async throws -> DecodeFixture {
        let encoded = try await ImageGenerator.shared.data(for: spec)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("shashin-bench-\(spec.seed)-4000x3000.jpg")
        try encoded.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fixture = DecodeFixture(data: try Data(contentsOf: file))
        let bitmap = try fixture.decode()
        guard bitmap.width == 256, bitmap.height == 192 else { fatalError("unexpected thumbnail \(bitmap.width)×\(bitmap.height)") }
        return fixture
    }

    func decode() throws -> Bitmap {
        try decoder.decodeBitmap(data, context: context)
    }

    /// Decodes `perThread` images on each of `threads` threads at once; returns images per second.
    func throughput(threads: Int, perThread: Int) -> Double {
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            DispatchQueue.concurrentPerform(iterations: threads) { _ in
                for _ in 0..<perThread { blackHole(try! decode()) }
            }
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Double(threads * perThread) / seconds
    }
}

enum DecodeMetric {
    static let imagesPerSecond = BenchmarkMetric.custom("images/s", polarity: .prefersLarger, useScalingFactor: false)
}

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [DecodeMetric.imagesPerSecond, .wallClock, .peakMemoryResident],
        timeUnits: .milliseconds,
        warmupIterations: 1,
        maxDuration: .seconds(6),
        maxIterations: 25
    )

    // One iteration: 4 images on one thread.
    Benchmark(
        "Decode 4000×3000 JPEG → 256 px, 1 thread (4 images per iteration)",
        configuration: configuration,
        closure: { (benchmark: Benchmark, fixture: DecodeFixture) in
            benchmark.measurement(DecodeMetric.imagesPerSecond, Int(fixture.throughput(threads: 1, perThread: 4).rounded()))
        },
        setup: { try await DecodeFixture.make() }
    )

    // One iteration: 4 images on each of 2 threads at once.
    Benchmark(
        "Decode 4000×3000 JPEG → 256 px, 2 threads (4 images each per iteration)",
        configuration: configuration,
        closure: { (benchmark: Benchmark, fixture: DecodeFixture) in
            benchmark.measurement(DecodeMetric.imagesPerSecond, Int(fixture.throughput(threads: 2, perThread: 4).rounded()))
        },
        setup: { try await DecodeFixture.make() }
    )
}
