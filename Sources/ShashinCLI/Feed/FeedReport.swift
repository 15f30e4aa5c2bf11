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
        /// With `--progressive`: how much larger (each side) the rows' progressive JPEGs are;
        /// `nil` without it.
        var progressive: Int?
        /// The connections the server dropped on purpose (`--drop-rate`), or `nil` for none.
        var connectionDrops: Drops?
        /// Whether the pipeline strategies retried failed downloads (`--retry`).
        var retry: Bool

        struct Drops: Codable {
            var rate: Double
            var seed: UInt64
            var points: [String]
        }
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
        if let scale = s.progressive {
            lines.append("progressive: the JPEG rows are progressive JPEGs at \(scale)× the pixel size; the pipeline strategies show previews")
        }
        if let drops = s.connectionDrops {
            lines.append("flaky network: the server drops \(String(format: "%g", drops.rate * 100)) % of requests (seed \(drops.seed), "
                + "\(drops.points.joined(separator: " or "))); pipeline retries \(s.retry ? "on (RetryPolicy())" : "off")")
        }
        if s.rounds > 1 {
            lines.append("\(s.rounds) rounds, orders " + s.orders.map { $0.joined(separator: " → ") }.joined(separator: "; ")
                + ": medians (flashes and wrong-row: totals over the rounds)")
        }
        lines.append("")
        var header = ["", "time-to-image at rest p50 / p95 / max", "flashes", "wrong-row", "downloaded", "shown", "never shown", "predicted, unseen", "requests", "peak", "sources"]
        if s.progressive != nil { header.insert("previews at rest: rows, to preview / preview to image p50", at: 2) }
        var table = [header]
        var censoredNotes: [String] = []
        for (name, m) in strategies {
            let t = m.timeToImageAtRestMs
            // Rows still waiting when a rest ended count the time until then: a lower bound.
            let bound = t.censored > 0 ? "≥ " : ""
            if t.censored > 0 {
                censoredNotes.append("\(name): \(t.censored) of \(t.samples) rows visible at rest never showed their image before the rest ended")
            }
            let p = m.previewsAtRest
            table.append([
                name,
                "\(bound)\(Int(t.p50)) / \(bound)\(Int(t.p95)) / \(bound)\(Int(t.max)) ms",
            ] + (s.progressive == nil ? [] : ["\(p.rows) of \(t.samples), \(Int(p.timeToPreviewP50)) / \(Int(p.previewToImageP50)) ms"]) + [
                "\(m.placeholderFlashes) of \(m.cellsConfiguredWithImageInMemory)",
                "\(m.wrongRowImages)",
                Self.megabytes(m.bytesDownloaded),
                Self.megabytes(m.bytesShown),
                Self.megabytes(m.bytesNeverShown),
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
            lines.append("each round (p50 / p95 ms, downloaded, never shown, requests):")
            for (name, m) in strategies {
                let rounds = (m.perRound ?? [m]).map { r in
                    "\(Int(r.timeToImageAtRestMs.p50)) / \(Int(r.timeToImageAtRestMs.p95)), \(Self.megabytes(r.bytesDownloaded)), "
                        + "\(Self.megabytes(r.bytesNeverShown)), \(r.requests)"
                }
                lines.append("  \(name): " + rounds.joined(separator: "; "))
            }
        }
        lines.append("")
        lines.append("where the bytes went (downloaded = rows on screen at a rest + shown only while moving + never shown):")
        for (name, m) in strategies {
            let u = m.bytesByUse
            lines.append("  \(name): at rest \(Self.megabytes(u.shownAtRest)); shown only while moving \(Self.megabytes(u.shownMoving))"
                + " (\(Self.megabytes(u.predictedShownMoving)) of it predicted); never shown: predicted \(Self.megabytes(u.predictedNeverShown)),"
                + " other \(Self.megabytes(u.otherNeverShown))")
        }
        if s.connectionDrops != nil || s.retry {
            lines.append("rows at rest (each row visit during a rest, as the rest ended): own image / failure shown / still waiting; "
                + "requests dropped by the server; failures shown; retries of the images shown:")
            for (name, m) in strategies {
                let r = m.rowsAtRest
                lines.append("  \(name): \(r.shown) / \(r.failed) / \(r.waiting) of \(r.shown + r.failed + r.waiting); "
                    + "\(m.droppedRequests) dropped; \(m.failures) failures"
                    + (m.failureKinds.isEmpty ? "" : " (" + m.failureKinds.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")")
                    + "; \(m.retries) retries")
            }
        }
        lines.append("slowest rows at rest, each round (rest #, row: ms to image, ms from on screen to its request):")
        for (name, m) in strategies {
            for (index, round) in (m.perRound ?? [m]).enumerated() {
                let slowest = round.restSamples.sorted { $0.ms > $1.ms }.prefix(Self.slowestShown).map(Self.describe)
                lines.append("  \(name) \(index + 1): " + slowest.joined(separator: ", "))
            }
        }
        lines.append("")
        lines.append(contentsOf: Self.legend(maxConcurrentDownloads: s.maxConcurrentDownloads, progressive: s.progressive != nil))
        if !censoredNotes.isEmpty {
            lines.append("  ≥                lower bounds: such rows count the time until the rest ended, not until their image came")
            lines.append(contentsOf: censoredNotes.map { "                   \($0)" })
        }
        let shashin = strategies.first(where: { $0.name == "shashin" })?.metrics
        var ratios: [String] = []
        for baseline in ["naive", "pipeline"] {
            guard let shashin, let base = strategies.first(where: { $0.name == baseline })?.metrics,
                  base.bytesDownloaded > 0, base.timeToImageAtRestMs.p95 > 0, base.requests > 0 else { continue }
            ratios.append("shashin vs \(baseline): bytes \(Self.ratio(shashin.bytesDownloaded, base.bytesDownloaded)), "
                + "requests \(Self.ratio(shashin.requests, base.requests)), "
                + "p95 time-to-image at rest \(Self.ratio(shashin.timeToImageAtRestMs.p95, base.timeToImageAtRestMs.p95))")
        }
        if !ratios.isEmpty {
            lines.append("")
            lines.append(contentsOf: ratios)
        }
        let conclusions = Self.conclusions(strategies)
        if !conclusions.isEmpty {
            lines.append("")
            lines.append("what this run shows:")
            lines.append(contentsOf: conclusions.map { "  - \($0)" })
        }
        if !pictures.isEmpty {
            lines.append("")
            lines.append("pictures: " + pictures.joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }

    /// One row visit at rest: `#rest rROW MS (req MS)`.
    static func describe(_ sample: FeedMetrics.RestSample) -> String {
        let bound = sample.censored ? "≥ " : ""
        let request = sample.requestedMs.map { " (req \(Int($0.rounded())))" } ?? ""
        return "#\(sample.rest) r\(sample.row) \(bound)\(Int(sample.ms))" + request
    }

    /// Row visits listed per round under "slowest rows at rest": p95 of 40 is the third.
    static let slowestShown = 5

    /// What each column means, one line each.
    static func legend(maxConcurrentDownloads: Int, progressive: Bool = false) -> [String] {
        [
            "columns:",
            "  time-to-image    for each row on screen while the list rests: from the row coming on screen to its own image showing",
        ] + (progressive ? [
            "                   (a preview is not the image: the wait goes on until the final image)",
            "  previews         of those rows, how many showed a progressive preview before their image; the median time from",
            "                   coming on screen to the first preview, and from the first preview to the image",
        ] : []) + [
            "  flashes          placeholders shown on cells whose image was already in memory (of such cells configured)",
            "  wrong-row        images shown on a row they do not belong to (a late result on a reused cell, or an old one left there)",
            "  downloaded       bytes the server sent; shown: bytes of the images that reached their own rows",
            "  never shown      bytes the server sent for rows that never showed their own image (prefetched, predicted, or",
            "                   started and cancelled); of them, predicted, unseen: the rows of a predicted landing window",
            "  requests         requests the server answered during the scroll",
            "  peak             most responses in flight at the server at once; a cancelled download counts until the server",
            "                   notices the closed connection, so it can exceed the \(maxConcurrentDownloads) downloads the pipeline allows",
            "  sources          where the images shown came from (network, memory, disk, revalidated with a 304)",
            "timelines.png:     rows × time; orange waiting, \(progressive ? "blue a progressive preview, " : "")green its own image, "
                + "red another row's image, purple a failure; light blue bands are the rests",
        ]
    }

    /// The reading of this run's figures: each sentence is stated only when the figures bear it out.
    static func conclusions(_ strategies: [(name: String, metrics: FeedMetrics)]) -> [String] {
        func metrics(_ name: String) -> FeedMetrics? { strategies.first { $0.name == name }?.metrics }
        var lines: [String] = []
        if let naive = metrics("naive") {
            let safe = strategies.filter { $0.name != "naive" && $0.metrics.wrongRowImages == 0 }.map(\.name)
            if naive.wrongRowImages > 0, !safe.isEmpty {
                lines.append("naive loading showed \(naive.wrongRowImages) wrong-row images; \(safe.joined(separator: " and ")) showed none "
                    + "(a reused cell cancels its old row and drops late results)")
            }
        }
        if let pipeline = metrics("pipeline"), let shashin = metrics("shashin") {
            let p95 = (pipeline.timeToImageAtRestMs.p95, shashin.timeToImageAtRestMs.p95)
            if shashin.requests < pipeline.requests, p95.1 > p95.0 {
                lines.append("the scroll policy (shashin) made \(ratio(shashin.requests, pipeline.requests)) pipeline's requests but its p95 "
                    + "was \(ratio(p95.1, p95.0)) pipeline's: rows that come on screen during a fast fling wait for the list to slow "
                    + "down before loading — the trade-off of the current policy (--fast-scroll-velocity moves it)")
            } else if shashin.requests < pipeline.requests {
                lines.append("the scroll policy (shashin) made \(ratio(shashin.requests, pipeline.requests)) pipeline's requests "
                    + "at no cost in p95 (\(ratio(p95.1, p95.0)))")
            }
        }
        return lines
    }

    /// `a / b` as `0.28×`, with as many decimals as it takes to keep two significant digits
    /// below 0.1 (`0.0042×`), so a small figure never rounds to `0.00×`.
    static func ratio<T: BinaryInteger>(_ a: T, _ b: T) -> String { ratio(Double(a), Double(b)) }

    /// `a / b` as `0.28×`; see the integer form.
    static func ratio(_ a: Double, _ b: Double) -> String {
        guard b > 0 else { return "–" }
        let value = a / b
        guard value > 0, value < 0.1 else { return String(format: "%.2f×", value) }
        let decimals = min(8, Int((-log10(value)).rounded(.down)) + 2)
        return String(format: "%.\(decimals)f×", value)
    }

    static func megabytes(_ bytes: Int) -> String {
        String(format: "%.2f MB", Double(bytes) / 1_000_000)
    }
}
