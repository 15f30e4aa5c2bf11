import ArgumentParser
import Foundation
import Shashin

/// `shashin bench-memory FILE...`: loads each file as a thumbnail through a default pipeline,
/// one after another, and prints one JSON line with the process's resident memory when idle and
/// its peak during the loads (Linux: `/proc/self/status`, peak reset through
/// `/proc/self/clear_refs`). Used by `scripts/bench-memory.sh`.
struct BenchMemoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-memory",
        abstract: "Measure peak resident memory while loading files as thumbnails one after another; prints one JSON line.",
        shouldDisplay: false
    )

    @Argument(help: "The image files, loaded in order through file:// URLs.")
    var files: [String]

    @Option(help: "Longest side of the thumbnail, in pixels.")
    var thumbnail = 256

    func run() async throws {
        let pipeline = ImagePipeline(configuration: .init())
        // Idle means ready to work: libvips started and URLSession set up, by one tiny load.
        let warmUp = FileManager.default.temporaryDirectory.appendingPathComponent("shashin-bench-memory-\(getpid()).png")
        try PlatformImageEncoder().encode(Bitmap(width: 2, height: 2, pixels: [UInt8](repeating: 200, count: 16)).platformImage, as: .png)
            .write(to: warmUp)
        defer { try? FileManager.default.removeItem(at: warmUp) }
        _ = try await pipeline.image(for: warmUp)

        let idle = try Self.memory().resident
        guard (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil else {
            throw ValidationError("Cannot reset the peak: /proc/self/clear_refs is not writable (Linux only).")
        }
        let clock = ContinuousClock()
        var sizes = Set<String>()
        let elapsed = try await clock.measure {
            for file in files {
                let request = ImageRequest(url: URL(fileURLWithPath: file), thumbnail: ThumbnailOptions(maxPixelSize: thumbnail))
                let image = try await pipeline.image(for: request)
                sizes.insert("\(image.pixelWidth)x\(image.pixelHeight)")
            }
        }
        let after = try Self.memory()
        let fields: [(String, String)] = [
            ("images", "\(files.count)"),
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

    /// `VmRSS` and `VmHWM` in bytes.
    private static func memory() throws -> (resident: Int, peak: Int) {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        func field(_ name: String) throws -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }),
                  let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
                throw ValidationError("No \(name) in /proc/self/status")
            }
            return kilobytes * 1024
        }
        return (try field("VmRSS"), try field("VmHWM"))
    }
}
