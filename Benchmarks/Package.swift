// swift-tools-version: 6.1
// Shashin's benchmarks (ordo-one/benchmark), kept in their own package so the library never
// depends on the benchmark harness. Run from this folder: `swift package benchmark`
// (or `make bench` from the repository root, which also runs the Pillow comparison).
import PackageDescription

let package = Package(
    name: "ShashinBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Shashin", path: ".."),
        // The trait list keeps SwiftPM from resolving the package's optional jemalloc backend.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // A memory-cache hit through `loadImage`, against a locked Dictionary lookup.
        .executableTarget(
            name: "MemoryHit",
            dependencies: [
                .product(name: "Shashin", package: "Shashin"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/MemoryHit",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // 2,000 downloads from an in-process ImageServer: `data(for:)` against the bare loader.
        .executableTarget(
            name: "NetworkPath",
            dependencies: [
                .product(name: "Shashin", package: "Shashin"),
                .product(name: "ImageServer", package: "Shashin"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/NetworkPath",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // A 4000×3000 JPEG to a 256 px thumbnail with libvips, on one and two threads.
        .executableTarget(
            name: "Decode",
            dependencies: [
                .product(name: "Shashin", package: "Shashin"),
                .product(name: "ImageServer", package: "Shashin"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/Decode",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
