import Foundation

/// What `shashin-dev gallery` prints at the end, as text or as one JSON object.
struct GalleryReport: Codable {
    struct Failure: Codable {
        var url: String
        var reason: String
        var expected: Bool
    }

    struct Pass: Codable {
        var name: String
        var images: Int
        var loaded: Int
        var seconds: Double
        var imagesPerSecond: Double
        var sources: [String: Int]
        var failures: [Failure]
    }

    var server: String
    var galleryImages: Int
    var galleryBytes: Int
    var generateSeconds: Double
    var thumbnailMaxPixelSize: Int
    var maxConcurrentDownloads: Int
    var bytesDownloaded: Int
    var requestsServed: Int
    var maxDownloadsInFlight: Int
    var passes: [Pass]
    var activeTasksAfter: Int

    var text: String {
        var lines: [String] = []
        lines.append("Shashin gallery — \(galleryImages) images (\(Self.megabytes(galleryBytes)) encoded) from \(server)")
        lines.append("  gallery generated in \(String(format: "%.1f", generateSeconds)) s; thumbnails of \(thumbnailMaxPixelSize) px; at most \(maxConcurrentDownloads) downloads at once")
        for pass in passes {
            let sources = pass.sources.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            lines.append("")
            lines.append("\(pass.name): \(pass.loaded)/\(pass.images) images in \(String(format: "%.2f", pass.seconds)) s (\(String(format: "%.0f", pass.imagesPerSecond)) images/s)")
            lines.append("  came from: \(sources.isEmpty ? "nowhere" : sources)")
            let unexpected = pass.failures.filter { !$0.expected }
            let expected = pass.failures.filter(\.expected)
            lines.append("  failures: \(unexpected.count)" + (expected.isEmpty ? "" : " (plus \(expected.count) scripted faults, failing as they should)"))
            for failure in pass.failures {
                lines.append("    \(failure.expected ? "scripted" : "FAILED  ") \(failure.url): \(failure.reason)")
            }
        }
        lines.append("")
        lines.append("network: \(Self.megabytes(bytesDownloaded)) in \(requestsServed) requests; most downloads in flight at once (counted by the server): \(maxDownloadsInFlight)")
        lines.append("tasks still active after the gallery load: \(activeTasksAfter)")
        return lines.joined(separator: "\n")
    }

    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: (try? encoder.encode(self)) ?? Data("{}".utf8), as: UTF8.self)
    }

    static func megabytes(_ bytes: Int) -> String {
        String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }
}
