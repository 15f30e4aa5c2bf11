import Foundation
import ShashinFeed

/// What `shashin demo` prints: the settings and every strategy's metrics, as a table or as one
/// JSON object keyed by strategy (plus `settings`).
struct FeedReport {
    struct Settings: Codable {
        var rows: Int
        var viewportRows: Int
        var thumbnailPixels: Int
        var latencyMs: Int
        var bytesPerSecondPerResponse: Int
        var maxConcurrentDownloads: Int
        var scriptSeconds: Double
        var server: String
        /// The disk caches' folder (one per pipeline strategy), or nil without disk caches.
        var diskCache: String?
        /// Times each strategy ran; each round runs them in another order (a rotation).
        var rounds: Int
        /// The order of the strategies in each round.
        var orders: [[String]]
    }

    let settings: Settings
    let strategies: [(name: String, metrics: FeedMetrics)]
    let pictures: [String]

    var json: String {
        struct Key: CodingKey {
            var stringValue: String
            init(_ string: String) { stringValue = string }
            init?(stringValue: String) { self.stringValue = stringValue }
            var intValue: Int? { nil }
            init?(intValue: Int) { nil }
        }
        struct Whole: Encodable {
            let report: FeedReport
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Key.self)
                try container.encode(report.settings, forKey: Key("settings"))
                for (name, metrics) in report.strategies { try container.encode(metrics, forKey: Key(name)) }
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = (try? encoder.encode(Whole(report: self))) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    var text: String {
        var lines: [String] = []
        let s = settings
        lines.append("Shashin feed demo — \(s.rows) rows, \(s.viewportRows) on screen, \(s.thumbnailPixels) px thumbnails, "
            + "\(String(format: "%.1f", s.scriptSeconds)) s scripted scroll (drag, four flicks over ~200 rows, rests, fling back, a fling caught mid-way)")
        lines.append("network: ImageServer on \(s.server), \(s.latencyMs) ms latency, \(s.bytesPerSecondPerResponse / 1000) KB/s per response; "
            + "pipeline: \(s.maxConcurrentDownloads) downloads at once")
        lines.append(s.diskCache.map { "disk caches: \($0)/<strategy> (a second run is served from them; every 10th row is no-cache: revalidated)" }
            ?? "disk caches: none")
        if s.rounds > 1 {
            lines.append("\(s.rounds) rounds, orders " + s.orders.map { $0.joined(separator: " → ") }.joined(separator: "; ")
                + ": medians (flashes and wrong-row: totals over the rounds)")
        }
        lines.append("")
        let header = ["", "time-to-image at rest p50 / p95 / max", "flashes", "wrong-row", "downloaded", "shown", "predicted, unseen", "requests", "peak", "sources"]
        var table = [header]
        for (name, m) in strategies {
            let t = m.timeToImageAtRestMs
            let censored = t.censored > 0 ? " (\(t.censored) of \(t.samples) never shown: ≥)" : ""
            table.append([
                name,
                "\(Int(t.p50)) / \(Int(t.p95)) / \(Int(t.max)) ms" + censored,
                "\(m.placeholderFlashes) of \(m.cellsConfiguredWithImageInMemory)",
                "\(m.wrongRowImages)",
                Self.megabytes(m.bytesDownloaded),
                Self.megabytes(m.bytesShown),
                Self.megabytes(m.bytesOnPredictedRowsNeverShown),
                "\(m.requests)",
                "\(m.peakConcurrentDownloads)",
                m.sources.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "),
            ])
        }
        let widths = header.indices.map { column in table.map { $0[column].count }.max() ?? 0 }
        for row in table {
            lines.append(row.enumerated().map { $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) }
                .joined(separator: "  "))
        }
        if s.rounds > 1 {
            lines.append("")
            lines.append("each round (p50 / p95 ms, downloaded, requests):")
            for (name, m) in strategies {
                let rounds = (m.perRound ?? [m]).map { r in
                    "\(Int(r.timeToImageAtRestMs.p50)) / \(Int(r.timeToImageAtRestMs.p95)), \(Self.megabytes(r.bytesDownloaded)), \(r.requests)"
                }
                lines.append("  \(name): " + rounds.joined(separator: "; "))
            }
        }
        let shashin = strategies.first(where: { $0.name == "shashin" })?.metrics
        var ratios: [String] = []
        for baseline in ["naive", "pipeline"] {
            guard let shashin, let base = strategies.first(where: { $0.name == baseline })?.metrics,
                  base.bytesDownloaded > 0, base.timeToImageAtRestMs.p95 > 0, base.requests > 0 else { continue }
            ratios.append(String(format: "shashin vs \(baseline): bytes %.2f×, requests %.2f×, p95 time-to-image at rest %.2f×",
                                 Double(shashin.bytesDownloaded) / Double(base.bytesDownloaded),
                                 Double(shashin.requests) / Double(base.requests),
                                 shashin.timeToImageAtRestMs.p95 / base.timeToImageAtRestMs.p95))
        }
        if !ratios.isEmpty {
            lines.append("")
            lines.append(contentsOf: ratios)
        }
        if !pictures.isEmpty {
            lines.append("")
            lines.append("pictures: " + pictures.joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }

    static func megabytes(_ bytes: Int) -> String {
        String(format: "%.2f MB", Double(bytes) / 1_000_000)
    }
}
