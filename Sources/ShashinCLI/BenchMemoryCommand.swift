import ArgumentParser
import Foundation
import Shashin
import ShashinCore

/// `shashin bench-memory URL...`: loads each URL as a thumbnail through a default pipeline, one
/// after another, and prints one JSON line with the process's resident memory when idle and its
/// peak during the loads (Linux: `/proc/self/status`, peak reset through `/proc/self/clear_refs`).
/// Used by `scripts/bench-memory.sh`, which serves the files from `shashin serve` on loopback, so
/// the server's memory is not in the measured process.
struct BenchMemoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-memory",
        abstract: "Measure peak resident memory while loading URLs as thumbnails one after another; prints one JSON line.",
        shouldDisplay: false
    )

    @Argument(help: "The images' http(s) URLs, loaded in order.")
    var urls: [String]

    @Option(help: "A small image's URL, loaded first so that idle means ready to work (libvips started, the loader's connection pool set up).")
    var warmUp: String

    @Option(help: "Longest side of the thumbnail, in pixels.")
    var thumbnail = 256

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
                let request = ImageRequest(url: url, thumbnail: ThumbnailOptions(maxPixelSize: thumbnail))
                let image = try await pipeline.image(for: request)
                sizes.insert("\(image.pixelWidth)x\(image.pixelHeight)")
            }
        }
        guard let after = ResidentMemory.now() else { throw ValidationError("Cannot read /proc/self/status.") }
        let fields: [(String, String)] = [
            ("images", "\(targets.count)"),
            ("thumbnail", "\(thumbnail)"),
            ("outputs", "\"\(sizes.sorted().joined(separator: " "))\""),
            ("seconds", String(format: "%.2f", Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)),
            ("idle_resident_mb", String(format: "%.1f", Double(idle) / 1_048_576)),
            ("peak_resident_mb", String(format: "%.1f", Double(after.peak) / 1_048_576)),
            ("peak_above_idle_mb", String(format: "%.1f", Double(after.peak - idle) / 1_048_576)),
            ("final_resident_mb", String(format: "%.1f", Double(after.resident) / 1_048_576)),
            ("memory_cache_mb", String(format: "%.1f", Double((pipeline.configuration.memoryCache as? MemoryCache)?.totalCost ?? 0) / 1_048_576)),
        ]
        print("{" + fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}")
    }

    private static func url(_ string: String) throws -> URL {
        guard let url = URL(string: string), url.scheme == "http" || url.scheme == "https" else {
            throw ValidationError("Not an http(s) URL: \(string)")
        }
        return url
    }
}
