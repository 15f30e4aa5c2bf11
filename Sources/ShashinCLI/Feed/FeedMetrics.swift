import Foundation

/// One strategy's figures for one run of the script.
struct FeedMetrics: Codable {
    /// Milliseconds from a row coming on screen to its own image showing, for the rows visible
    /// while the list rests. A row still without its image when the rest ends counts the time
    /// until then (`censored`): the figure is then a lower bound.
    struct TimeToImage: Codable {
        var p50: Double
        var p95: Double
        var max: Double
        var samples: Int
        var censored: Int
    }

    var timeToImageAtRestMs: TimeToImage
    /// Cells configured for a row whose image was in memory that showed a placeholder first.
    var placeholderFlashes: Int
    var cellsConfiguredWithImageInMemory: Int
    /// Images shown in a cell that, by then, showed another row.
    var wrongRowImages: Int
    /// Body bytes the server sent during the script.
    var bytesDownloaded: Int
    /// The encoded size of the distinct images that were shown on their own row.
    var bytesShown: Int
    var requests: Int
    /// The most responses in flight at once, counted by the server.
    var peakConcurrentDownloads: Int
    /// Where shown images came from.
    var sources: [String: Int]
    var seconds: Double

    init(_ recording: FeedRecording, script: FeedScript, rows: Int, viewportRows: Int,
         truth: [Int: UInt64], encodedBytes: [Int: Int]) {
        var correct: [Int: [Double]] = [:]
        var wrong = 0
        for event in recording.imageEvents {
            if truth[event.row] == event.fingerprint {
                correct[event.row, default: []].append(event.time)
            } else {
                wrong += 1
            }
        }
        var samples: [Double] = []
        var censored = 0
        var seen = Set<[Double]>()
        let maxOffset = Double(max(0, rows - viewportRows))
        for rest in script.restPeriods {
            let offset = script.moment(at: rest.start, maxOffset: maxOffset).offset
            for row in FeedRun.visibleRows(offset: offset, viewportRows: viewportRows, rows: rows) {
                guard let since = recording.entries[row]?.last(where: { $0 <= rest.end }),
                      seen.insert([Double(row), since]).inserted else { continue }
                let end = min(rest.end, recording.seconds)
                if let shown = correct[row]?.first(where: { $0 >= since }), shown <= end {
                    samples.append(shown - since)
                } else {
                    samples.append(end - since)
                    censored += 1
                }
            }
        }
        samples.sort()
        func percentile(_ p: Double) -> Double {
            guard !samples.isEmpty else { return 0 }
            return samples[max(0, min(samples.count - 1, Int((p * Double(samples.count)).rounded(.up)) - 1))] * 1000
        }
        timeToImageAtRestMs = TimeToImage(p50: percentile(0.5), p95: percentile(0.95), max: (samples.last ?? 0) * 1000,
                                          samples: samples.count, censored: censored)
        placeholderFlashes = recording.flashes
        cellsConfiguredWithImageInMemory = recording.memoryConfigures
        wrongRowImages = wrong
        bytesDownloaded = recording.bytesSent
        bytesShown = correct.keys.reduce(0) { $0 + (encodedBytes[$1] ?? 0) }
        requests = recording.requests
        peakConcurrentDownloads = recording.maxInFlight
        sources = recording.sources
        seconds = recording.seconds
    }
}
