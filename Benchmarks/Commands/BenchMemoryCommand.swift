import ArgumentParser
import Foundation
import Shashin
import ShashinCore
import ShashinToolSupport

/// `shashin-bench memory URL...`: loads each URL as a thumbnail through a default pipeline, one
/// after another, and prints one JSON line with the process's resident memory when idle and its
/// peak during the loads (Linux: `/proc/self/status`, peak reset through `/proc/self/clear_refs`).
/// Used by `scripts/bench-memory.sh`, which serves the files from `shashin serve` on loopback, so
/// the server's memory is not in the measured process.
struct BenchMemoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memory",
        abstract: "Measure peak resident memory while loading URLs as thumbnails one after another; prints one JSON line."
    )

    @Argument(help: "The images' http(s) URLs, loaded in order.")
    var urls: [String]

    @Option(help: "A small image's URL, loaded first so that idle means ready to work (libvips started, the loader's connection pool set up).")
    var warmUp: String

    @OptionGroup var thumbnail: ThumbnailSizeOption

    func run() async throws {
        let targets = try urls.map(Self.url)
        let pipeline = ImagePipeline(configuration: .init())
        _ = try await pipeline.image(for: try Self.url(warmUp))

        guard let idle = ResidentMemory.now()?.resident else {
            throw ValidationError("Cannot read /proc/self/status (Linux only).")
        }
        guard ResidentMemory.resetPeak() else {
            throw ValidationError("Cannot reset the peak: /proc/self/clear_refs is not writable (Linux only).")
        }
        let clock = ContinuousClock()
        var sizes = Set<String>()
        let elapsed = try await clock.measure {
            for url in targets {
                let request = ImageRequest(url: url, thumbnail: thumbnail.options)
                let image = try await pipeline.image(for: request)
                sizes.insert("\(image.pixelWidth)x\(image.pixelHeight)")
            }
        }
        guard let after = ResidentMemory.now() else { throw ValidationError("Cannot read /proc/self/status.") }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let memoryCacheBytes = (pipeline.configuration.memoryCache as? MemoryCache)?.totalCost ?? 0
        try printJSONLine(Report(
            images: targets.count,
            thumbnail: thumbnail.maxPixelSize,
            outputs: sizes.sorted().joined(separator: " "),
            seconds: rounded(seconds, 2),
            idleResidentMB: megabytes(idle),
            peakResidentMB: megabytes(after.peak),
            peakAboveIdleMB: megabytes(after.peak - idle),
            finalResidentMB: megabytes(after.resident),
            memoryCacheMB: megabytes(memoryCacheBytes)
        ))
    }

    /// The JSON line `scripts/bench-memory.sh` reads; sizes in MiB, to a tenth.
    struct Report: Encodable {
        var images: Int
        var thumbnail: Int
        /// The thumbnails' sizes, "<width>x<height>", distinct, space-separated.
        var outputs: String
        var seconds: Double
        var idleResidentMB: Double
        var peakResidentMB: Double
        var peakAboveIdleMB: Double
        var finalResidentMB: Double
        var memoryCacheMB: Double

        enum CodingKeys: String, CodingKey {
            case images, thumbnail, outputs, seconds
            case idleResidentMB = "idle_resident_mb"
            case peakResidentMB = "peak_resident_mb"
            case peakAboveIdleMB = "peak_above_idle_mb"
            case finalResidentMB = "final_resident_mb"
            case memoryCacheMB = "memory_cache_mb"
        }
    }

    private static func url(_ string: String) throws -> URL {
        guard let url = URL(string: string), url.scheme == "http" || url.scheme == "https" else {
            throw ValidationError("Not an http(s) URL: \(string)")
        }
        return url
    }
}
