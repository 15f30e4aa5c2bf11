// swift-tools-version: 6.2
import PackageDescription
import Foundation

/// `SHASHIN_CORE_ONLY=1` narrows the package to the core and its tests: the ThreadSanitizer run
/// then builds neither libvips bindings nor the HTTP server it does not test.
let coreOnly = ProcessInfo.processInfo.environment["SHASHIN_CORE_ONLY"] == "1"

/// `SHASHIN_FUZZ=1` adds the libFuzzer targets in `Fuzz/` (built by `scripts/fuzz` with
/// `-sanitize=fuzzer,address` in their own build folder); without it `swift build` never sees them.
let fuzzing = ProcessInfo.processInfo.environment["SHASHIN_FUZZ"] == "1"

/// `SHASHIN_APPLE_SHAPE=1` is the compile check `make check-apple-shape` (Linux only): every target
/// is built with the condition `SHASHIN_APPLE_SHAPE`, under which `PlatformImage` is an opaque,
/// non-Sendable class shaped as `UIImage`/`NSImage` are to this package, and `Shashin`'s ImageIO and
/// Core Graphics types are signature-only stand-ins. Code outside the platform files that assumes
/// `PlatformImage` is `Bitmap` then fails here as it would on a Mac. The libvips targets are left
/// out, as on Apple platforms. Never shipped, never run.
let appleShape = ProcessInfo.processInfo.environment["SHASHIN_APPLE_SHAPE"] == "1"

/// Where the platform decodes with libvips: everywhere but Apple platforms, which use ImageIO.
let vipsPlatforms: [Platform] = [.linux]

/// Whether the package declares its libvips targets (`CVips`, `ShashinVips`, `ShashinVipsTests`) and
/// the C kernels beside them (`CImageKernels` and the system libraries it links).
/// Not on Apple platforms: ImageIO decodes there, and a Mac without Homebrew's vips must build.
/// The manifest is compiled for the machine that builds, so this is a question about that machine.
#if canImport(Darwin)
let declaresVips = false
#else
let declaresVips = !appleShape
#endif

/// Where the platform downloads with AsyncHTTPClient: everywhere but Apple platforms, which keep
/// URLSession (on Linux URLSession is libcurl behind swift-corelibs-foundation, and slow).
let asyncHTTPClientPlatforms: [Platform] = [.linux]

/// Apple's platforms, for what only they build.
let applePlatforms: [Platform] = [.macOS, .macCatalyst, .iOS, .tvOS, .watchOS, .visionOS]

let package = Package(
    name: "Shashin",
    platforms: [.iOS(.v15), .macOS(.v12)],
    products: [
        .library(name: "Shashin", targets: ["Shashin"]),
        .library(name: "ShashinUI", targets: ["ShashinUI"]),
        .library(name: "ShashinAsyncHTTPClient", targets: ["ShashinAsyncHTTPClient"]),
        .library(name: "ImageServer", targets: ["ImageServer"]),
        .executable(name: "shashin", targets: ["ShashinCLI"]),
        .executable(name: "shashin-bench", targets: ["ShashinBench"]),
        .executable(name: "shashin-dev", targets: ["ShashinDevTools"]),
    ],
    dependencies: [
        // The ImageServer's transport: HTTP/1.1, TLS with a certificate made at start, HTTP/2 by ALPN.
        // The versions are those async-http-client 1.37.0 accepts, so both resolve to one copy.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        // The HTTPS certificate on Apple platforms only (Linux makes it with OpenSSL's libcrypto):
        // fetched everywhere, compiled there.
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // The logs of `ImagePipelineLogger` on Linux: swift-log, which AsyncHTTPClient already
        // brings and server-side Swift apps already route. Not compiled on Apple platforms (os.Logger).
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // The pipeline: requests, tasks, job graph, queues, caches, loading. No codec, no UI, no server.
        .target(
            name: "ShashinCore",
            dependencies: [.target(name: "CSQLite", condition: .when(platforms: [.linux]))]
        ),

        // The system SQLite for the disk cache's index (Apple platforms have `import SQLite3`).
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),

        // libvips through a system-library module: shim.h wraps libvips' variadic calls (loaders,
        // savers, transforms, processors) and captures its warnings. No other C lives there.
        .systemLibrary(
            name: "CVips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"]), .brew(["vips"])]
        ),
        // The C kernels ShashinVips runs beside libvips, one concern a file: the direct
        // libjpeg-turbo decoder (jpeg_decoder.c, jpeg_pixels.c), its buffered-image preview session
        // (jpeg_session.c), the SIMD Lanczos resampler (resample.c) and RGBA shrink (rgba_shrink.c),
        // the lcms transform to sRGB (icc_transform.c) and the zlib inflated-size guard
        // (zlib_guard.c). include/CImageKernels.h declares only what Swift calls.
        // Debug builds compile it at -O2, as release builds do, so the per-pixel loops never run
        // unoptimised (in tests, benchmarks' smoke runs or a user's debug app). `unsafeFlags` does
        // not stop a user from depending on Shashin by version: SwiftPM refuses unsafe flags in a
        // versioned dependency only when its manifest is below tools version 6.2, and this one is
        // 6.2 (Swift 6.3.1: a consumer of a tagged copy by `from:` builds; at 6.1 it is refused).
        .target(
            name: "CImageKernels",
            dependencies: ["CLibJPEG", "CLCMS2", "CZlib"],
            cSettings: [.unsafeFlags(["-O2"], .when(configuration: .debug))]
        ),
        // The libraries CImageKernels links, by their pkg-config names. CZlib also gives ShashinVips
        // zlib's crc32 (APNG chunk checks) and ShashinVipsTests its deflate (crafted PNG streams).
        .systemLibrary(name: "CLibJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg-dev"])]),
        .systemLibrary(name: "CLCMS2", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .target(name: "ShashinVips", dependencies: ["ShashinCore", "CVips", "CImageKernels", "CZlib"]),

        // A `DataLoading` over AsyncHTTPClient (SwiftNIO): the default loader on Linux.
        .target(
            name: "ShashinAsyncHTTPClient",
            dependencies: [
                "ShashinCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),

        // What users import: the core plus the platform's default codecs and loader.
        .target(
            name: "Shashin",
            dependencies: [
                "ShashinCore",
                .target(name: "ShashinVips", condition: .when(platforms: vipsPlatforms)),
                .target(name: "ShashinAsyncHTTPClient", condition: .when(platforms: asyncHTTPClientPlatforms)),
                .product(name: "Logging", package: "swift-log", condition: .when(platforms: asyncHTTPClientPlatforms)),
            ]
        ),

        // UIKit, AppKit and SwiftUI adapters over the UI-neutral display layer; empty on Linux.
        .target(name: "ShashinUI", dependencies: ["Shashin"]),

        // A real HTTP server with scripted behaviour, for tests, the demo and benchmarks.
        .target(
            name: "ImageServer",
            dependencies: [
                "Shashin",
                "ShashinCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                // The HTTPS listener's certificate: the system's OpenSSL on Linux (one BoringSSL
                // to compile, swift-nio-ssl's, not a second one for swift-crypto); swift-certificates
                // on Apple platforms, which have no system OpenSSL.
                .target(name: "CSelfSignedCertificate", condition: .when(platforms: [.linux])),
                .product(name: "X509", package: "swift-certificates", condition: .when(platforms: applePlatforms)),
                .product(name: "Crypto", package: "swift-crypto", condition: .when(platforms: applePlatforms)),
                .product(name: "SwiftASN1", package: "swift-asn1", condition: .when(platforms: applePlatforms)),
            ]
        ),

        // A P-256 key and a self-signed certificate made with OpenSSL's libcrypto (libssl-dev).
        .target(
            name: "CSelfSignedCertificate",
            linkerSettings: [.linkedLibrary("crypto")]
        ),

        // The demo's scripted scroll, its recordings and their scoring: a library so tests reach them.
        .target(name: "ShashinFeed", dependencies: ["ShashinCore"]),

        // What the three executables share: option groups, the one-line JSON printer, SplitMix64.
        .target(
            name: "ShashinToolSupport",
            dependencies: ["Shashin", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),

        // `shashin`, the user's tool: demo, fetch, http, cache, serve, generate.
        .executableTarget(
            name: "ShashinCLI",
            dependencies: [
                "Shashin",
                "ShashinFeed",
                "ImageServer",
                "ShashinAsyncHTTPClient",
                "ShashinToolSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // `shashin-bench`, the benchmark commands the scripts in scripts/bench-*.sh run. A target of
        // this package (Benchmarks/Package.swift, the ordo-one harness, is a package apart whose
        // build compiles every dependency again): `swift build` builds it with the rest.
        .executableTarget(
            name: "ShashinBench",
            dependencies: [
                "Shashin",
                "ImageServer",
                "ShashinAsyncHTTPClient",
                "ShashinToolSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/Commands"
        ),

        // `shashin-dev`, the developer tools: the soak, the crash tests' cache writer, the gallery
        // load, the hostile origin.
        .executableTarget(
            name: "ShashinDevTools",
            dependencies: [
                "Shashin",
                "ImageServer",
                "ShashinToolSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // The pipeline's own cost per cold request (an instant loader and decoder), in release by
        // `scripts/bench-pipeline-cost.sh`: the core alone, so its release build needs no dependency.
        // Kept apart from `shashin-bench`, whose release build compiles SwiftNIO and libvips' bindings.
        .executableTarget(name: "PipelineCostBench", dependencies: ["ShashinCore"], path: "Benchmarks/PipelineCost"),
        // The disk cache's store cost at 100k entries against a baseline commit's, by
        // `scripts/bench-disk-store.sh`: the core alone, like the pipeline-cost benchmark.
        .executableTarget(name: "DiskStoreCostBench", dependencies: ["ShashinCore"], path: "Benchmarks/DiskStoreCost"),

        // The invariants the HTTP-cache fuzzer checks, as a library: the fuzzer (under SHASHIN_FUZZ=1)
        // and the core's tests both use it. Not a product: nothing ships it.
        .target(name: "FuzzProbes", dependencies: ["ShashinCore"], path: "Fuzz/Sources/FuzzProbes"),

        .testTarget(name: "ShashinCoreTests", dependencies: ["ShashinCore", "FuzzProbes"], resources: [.copy("Resources")]),
        .testTarget(
            name: "ShashinVipsTests",
            // ImageServer for its AnimatedPNGWriter (APNG files the tests shape field by field).
            // CImageKernels and CZlib for the C kernels' own tests and the crafted PNG streams.
            dependencies: ["Shashin", "ImageServer", "CImageKernels", "CZlib"],
            resources: [.copy("Resources")]
        ),
        .testTarget(
            name: "ImageServerTests",
            dependencies: [
                "ImageServer",
                "Shashin",
                // A NIO client for the HTTPS and HTTP/2 tests (URLSession covers HTTP/1.1).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ]
        ),
        .testTarget(
            name: "ShashinTests",
            dependencies: [
                "Shashin", "ShashinAsyncHTTPClient", "ImageServer",
                // A client of the tests' own, trusting the ImageServer's certificate, for HTTPS and HTTP/2.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                // A log handler of the tests' own, to read what ImagePipelineLogger writes.
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The ImageIO codecs' tests; empty where ImageIO does not exist (Linux).
        .testTarget(name: "ShashinAppleTests", dependencies: ["Shashin"]),
        .testTarget(name: "ShashinFeedTests", dependencies: ["ShashinFeed"]),
    ],
    swiftLanguageModes: [.v6]
)

if coreOnly {
    package.products = []
    package.dependencies = []
    package.targets = package.targets.filter {
        ["ShashinCore", "CSQLite", "FuzzProbes", "ShashinCoreTests", "PipelineCostBench", "DiskStoreCostBench"].contains($0.name)
    }
}

/// Leaves the targets named `names` out of the package, and out of every other target's dependencies.
@MainActor func removeTargets(_ names: Set<String>) {
    package.targets = package.targets.filter { !names.contains($0.name) }
    for target in package.targets {
        target.dependencies = target.dependencies.filter {
            switch $0 {
            case .targetItem(let name, _), .byNameItem(let name, _): !names.contains(name)
            default: true
            }
        }
    }
}

if !declaresVips {
    removeTargets(["CVips", "CImageKernels", "CLibJPEG", "CLCMS2", "CZlib", "ShashinVips", "ShashinVipsTests"])
}

#if canImport(Darwin)
// Apple platforms have no system OpenSSL: the test server's certificate comes from
// swift-certificates there, and the C target that calls libcrypto is not declared.
removeTargets(["CSelfSignedCertificate"])
#endif

if appleShape {
    // The Apple-only tests are empty without ImageIO: nothing to compile. The pipeline-cost
    // benchmark makes a `Bitmap` its decoder's image, as on Linux only.
    package.targets = package.targets.filter { !["ShashinAppleTests", "PipelineCostBench", "DiskStoreCostBench"].contains($0.name) }
    for target in package.targets where target.type != .system && target.name != "CSelfSignedCertificate" {
        target.swiftSettings = (target.swiftSettings ?? []) + [.define("SHASHIN_APPLE_SHAPE")]
    }
}

if fuzzing && !appleShape {
    // libFuzzer's driver entry point, declared for Swift (the library comes with `-sanitize=fuzzer`).
    package.targets.append(.systemLibrary(name: "CLibFuzzer", path: "Fuzz/CLibFuzzer"))
    package.targets.append(.target(name: "FuzzSupport", dependencies: ["CLibFuzzer"], path: "Fuzz/Sources/FuzzSupport"))
    let fuzzers: [(name: String, dependencies: [Target.Dependency])] = [
        ("FuzzDecode", ["Shashin"]),         // format sniffing, the decoder registry, libvips and libjpeg-turbo
        ("FuzzHTTPCache", ["ShashinCore", "FuzzProbes"]),  // Cache-Control, HTTP dates, Age, Vary, ETag, 304 merging, stored metadata
        ("FuzzDiskIndex", ["ShashinCore"]),  // the disk cache opening and reading a damaged SQLite index
    ]
    for fuzzer in fuzzers {
        package.targets.append(.executableTarget(
            name: fuzzer.name, dependencies: fuzzer.dependencies + ["FuzzSupport"], path: "Fuzz/Sources/\(fuzzer.name)"))
    }
}
