import Foundation

/// One strategy's figures for one run of the script.
package struct FeedMetrics: Codable, Sendable {
    /// Milliseconds from a row coming on screen to its own image showing, for the rows visible
    /// while the list rests. A row still without its image when the rest ends counts the time
    /// until then (`censored`): the figure is then a lower bound.
    package struct TimeToImage: Codable, Sendable, Equatable {
        package var p50: Double
        package var p95: Double
        package var max: Double
        package var samples: Int
        package var censored: Int

        package init(p50: Double, p95: Double, max: Double, samples: Int, censored: Int) {
            self.p50 = p50
            self.p95 = p95
            self.max = max
            self.samples = samples
            self.censored = censored
        }
    }

    /// Progressive previews on the rows visible while the list rests (the same row visits as
    /// ``TimeToImage``): how many showed one before their own image, and when.
    package struct Previews: Codable, Sendable, Equatable {
        /// Row visits that showed a preview before their own image (or before the rest ended,
        /// for a row that never showed its image).
        package var rows: Int
        /// Milliseconds from the row coming on screen to its first preview: the median over
        /// those visits.
        package var timeToPreviewP50: Double
        /// Milliseconds from the first preview to the row's own image: the median over the
        /// visits that showed both.
        package var previewToImageP50: Double

        package init(rows: Int, timeToPreviewP50: Double, previewToImageP50: Double) {
            self.rows = rows
            self.timeToPreviewP50 = timeToPreviewP50
            self.previewToImageP50 = previewToImageP50
        }
    }

    /// One row visit scored in ``TimeToImage``: which rest it belongs to and where its wait went.
    package struct RestSample: Codable, Sendable, Equatable {
        /// The rest, counted from 0 in script order.
        package var rest: Int
        package var row: Int
        /// Milliseconds from the row coming on screen to its own image (or to the rest's end).
        package var ms: Double
        package var censored: Bool
        /// Milliseconds from the row coming on screen to the last request for it the server saw
        /// before its image showed (negative: asked for before it came on screen); `nil` when the
        /// server saw none (a memory or disk hit).
        package var requestedMs: Double?
        /// The row's encoded image size: with the latency and bandwidth, the least a download of
        /// it takes.
        package var encodedBytes: Int?

        package init(rest: Int, row: Int, ms: Double, censored: Bool, requestedMs: Double?, encodedBytes: Int? = nil) {
            self.rest = rest
            self.row = row
            self.ms = ms
            self.censored = censored
            self.requestedMs = requestedMs
            self.encodedBytes = encodedBytes
        }
    }

    /// The bytes the server sent, by what became of the rows they were for.
    package struct BytesByUse: Codable, Sendable, Equatable {
        /// Rows on screen while the list rested.
        package var shownAtRest = 0
        /// Rows that showed their own image only while the list moved; of them,
        /// ``predictedShownMoving`` were in a predicted landing window.
        package var shownMoving = 0
        package var predictedShownMoving = 0
        /// Rows that never showed their own image: in a predicted landing window, or not
        /// (prefetched ahead, flown past, cancelled).
        package var predictedNeverShown = 0
        package var otherNeverShown = 0

        package init() {}
    }

    /// A row the server sent bytes for that never showed its own image during the run.
    package struct UnseenRow: Codable, Sendable, Equatable {
        package var row: Int
        /// Body bytes the server sent for it.
        package var bytes: Int
        /// Whether it was in a predicted landing window.
        package var predicted: Bool
        /// Seconds into the script when the server was seen to receive its requests (watched only
        /// near the screen and near a predicted landing: empty for a row farther away).
        package var requestedAt: [Double]

        package init(row: Int, bytes: Int, predicted: Bool, requestedAt: [Double]) {
            self.row = row
            self.bytes = bytes
            self.predicted = predicted
            self.requestedAt = requestedAt
        }
    }

    /// What the row visits of ``TimeToImage`` showed as their rest ended.
    package struct RowsAtRest: Codable, Sendable, Equatable {
        /// Their own image.
        package var shown = 0
        /// A failure (the load ended in an error).
        package var failed = 0
        /// Anything else: a placeholder, nothing, a preview, another row's image.
        package var waiting = 0

        package init(shown: Int = 0, failed: Int = 0, waiting: Int = 0) {
            self.shown = shown
            self.failed = failed
            self.waiting = waiting
        }
    }

    package var timeToImageAtRestMs: TimeToImage
    /// How the rows on screen at each rest ended it: the images a user saw, or not.
    package var rowsAtRest = RowsAtRest()
    /// Loads that ended in an error, attempts beyond the first over the images shown, and
    /// requests the server dropped on purpose.
    package var failures = 0
    /// ``failures`` by kind of error, such as `truncatedData` (summed over rounds).
    package var failureKinds: [String: Int] = [:]
    package var retries = 0
    package var droppedRequests = 0
    /// Every row visit scored in ``timeToImageAtRestMs``, in script order (one round's; empty
    /// for figures combined over rounds: see ``perRound``).
    package var restSamples: [RestSample] = []
    /// The bytes downloaded, split by what became of their rows.
    package var bytesByUse = BytesByUse()
    /// Previews count as "not yet the image" in ``timeToImageAtRestMs``; these are their own figures.
    package var previewsAtRest = Previews(rows: 0, timeToPreviewP50: 0, previewToImageP50: 0)
    /// Cells configured for a row whose image was in memory that showed a placeholder first.
    package var placeholderFlashes: Int
    package var cellsConfiguredWithImageInMemory: Int
    /// Images of another row seen on a row: counted from the recorded frames (what the screen
    /// showed), once per row visit and image, so a late image landing on a reused cell and an old
    /// image left on a reused cell both count.
    package var wrongRowImages: Int
    /// Frames × rows that showed another row's image.
    package var wrongRowFrames: Int
    /// Body bytes the server sent for rows in a predicted landing window that never showed
    /// their own image: what a wrong prediction cost.
    package var bytesOnPredictedRowsNeverShown = 0
    /// Body bytes the server sent for rows that never showed their own image during the run,
    /// at rest or moving (prefetched, predicted, or started and cancelled): downloaded, never shown.
    package var bytesNeverShown = 0
    /// Those rows, in row order (one round's; empty for figures combined over rounds).
    package var unseenRows: [UnseenRow] = []
    /// Body bytes the server sent during the script.
    package var bytesDownloaded: Int
    /// The encoded size of the distinct images that were shown on their own row.
    package var bytesShown: Int
    package var requests: Int
    /// The most responses in flight at once, counted by the server.
    package var peakConcurrentDownloads: Int
    /// Where shown images came from.
    package var sources: [String: Int]
    package var seconds: Double
    /// Rounds these figures summarise: medians over the rounds, except flashes, cells configured
    /// from memory and wrong-row counts, which are totals.
    package var rounds = 1
    /// Each round's figures, when there was more than one.
    package var perRound: [FeedMetrics]?

    package init(_ recording: FeedRecording, script: FeedScript, rows: Int, viewportRows: Int,
         truth: [Int: UInt64], encodedBytes: [Int: Int]) {
        var correct: [Int: [Double]] = [:]
        for event in recording.imageEvents where truth[event.row] == event.fingerprint {
            correct[event.row, default: []].append(event.time)
        }
        (wrongRowImages, wrongRowFrames) = Self.wrongRows(in: recording.frames, truth: truth)
        var samples: [Double] = []
        var censored = 0
        var toPreview: [Double] = [], previewToImage: [Double] = []
        var seen = Set<[Double]>()
        let maxOffset = Double(max(0, rows - viewportRows))
        var restRows = Set<Int>()
        for (restIndex, rest) in script.restPeriods.enumerated() {
            let offset = script.moment(at: rest.start, maxOffset: maxOffset).offset
            let lastFrame = recording.frames.last { $0.time <= rest.end }
            for row in FeedScript.visibleRows(offset: offset, viewportRows: viewportRows, rows: rows) {
                guard let since = recording.entries[row]?.last(where: { $0 <= rest.end }),
                      seen.insert([Double(row), since]).inserted else { continue }
                restRows.insert(row)
                switch lastFrame?.rows.first(where: { $0.row == row })?.state {
                case .image(let fingerprint) where truth[row] == fingerprint: rowsAtRest.shown += 1
                case .failure: rowsAtRest.failed += 1
                default: rowsAtRest.waiting += 1
                }
                let end = min(rest.end, recording.seconds)
                let shown = correct[row]?.first(where: { $0 >= since }).flatMap { $0 <= end ? $0 : nil }
                if let shown {
                    samples.append(shown - since)
                } else {
                    samples.append(end - since)
                    censored += 1
                }
                let requested = recording.requestTimes[row]?.last(where: { $0 <= (shown ?? end) })
                restSamples.append(RestSample(rest: restIndex, row: row, ms: samples[samples.count - 1] * 1000,
                                              censored: shown == nil, requestedMs: requested.map { ($0 - since) * 1000 },
                                              encodedBytes: encodedBytes[row]))
                if let preview = recording.previewEvents[row]?.first(where: { $0 >= since && $0 <= (shown ?? end) }) {
                    toPreview.append(preview - since)
                    if let shown { previewToImage.append(shown - preview) }
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
        previewsAtRest = Previews(rows: toPreview.count, timeToPreviewP50: Self.median(toPreview) * 1000,
                                  previewToImageP50: Self.median(previewToImage) * 1000)
        placeholderFlashes = recording.flashes
        cellsConfiguredWithImageInMemory = recording.memoryConfigures
        bytesDownloaded = recording.bytesSent
        bytesShown = correct.keys.reduce(0) { $0 + (encodedBytes[$1] ?? 0) }
        bytesOnPredictedRowsNeverShown = recording.predictedRows.subtracting(correct.keys)
            .reduce(0) { $0 + (recording.bytesByRow[$1] ?? 0) }
        for (row, bytes) in recording.bytesByRow.sorted(by: { $0.key < $1.key }) where bytes > 0 && correct[row] == nil {
            bytesNeverShown += bytes
            unseenRows.append(UnseenRow(row: row, bytes: bytes, predicted: recording.predictedRows.contains(row),
                                        requestedAt: recording.requestTimes[row] ?? []))
        }
        for (row, bytes) in recording.bytesByRow {
            let predicted = recording.predictedRows.contains(row)
            if restRows.contains(row) {
                bytesByUse.shownAtRest += bytes
            } else if correct[row] != nil {
                bytesByUse.shownMoving += bytes
                if predicted { bytesByUse.predictedShownMoving += bytes }
            } else if predicted {
                bytesByUse.predictedNeverShown += bytes
            } else {
                bytesByUse.otherNeverShown += bytes
            }
        }
        requests = recording.requests
        peakConcurrentDownloads = recording.maxInFlight
        sources = recording.sources
        seconds = recording.seconds
        failures = recording.failures
        failureKinds = recording.failureKinds
        retries = recording.retries
        droppedRequests = recording.droppedRequests
    }

    /// The median of `values`; 0 for none.
    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// Wrong images as the frames show them: a row's image whose fingerprint is not the row's,
    /// counted once from the frame it appears until the row shows something else or leaves.
    package static func wrongRows(in frames: [FeedRecording.Frame], truth: [Int: UInt64]) -> (images: Int, frames: Int) {
        var images = 0, wrongFrames = 0
        var last: [Int: FeedRecording.RowState] = [:]
        for frame in frames {
            var now: [Int: FeedRecording.RowState] = [:]
            for (row, state) in frame.rows {
                now[row] = state
                guard case .image(let fingerprint) = state, truth[row] != fingerprint else { continue }
                wrongFrames += 1
                if last[row] != state { images += 1 }
            }
            last = now
        }
        return (images, wrongFrames)
    }

    /// One strategy's rounds as one set of figures: the median of each, and the totals of the
    /// counts that must be zero (so one bad round shows).
    package static func combining(_ rounds: [FeedMetrics]) -> FeedMetrics {
        guard var combined = rounds.first else { preconditionFailure("no rounds") }
        guard rounds.count > 1 else { return combined }
        func median(_ values: [Double]) -> Double { Self.median(values) }
        func median(_ values: [Int]) -> Int { Int(median(values.map(Double.init)).rounded()) }
        let times = rounds.map(\.timeToImageAtRestMs)
        combined.timeToImageAtRestMs = TimeToImage(p50: median(times.map(\.p50)), p95: median(times.map(\.p95)),
                                                   max: median(times.map(\.max)), samples: median(times.map(\.samples)),
                                                   censored: median(times.map(\.censored)))
        let previews = rounds.map(\.previewsAtRest)
        combined.previewsAtRest = Previews(rows: median(previews.map(\.rows)),
                                           timeToPreviewP50: median(previews.map(\.timeToPreviewP50)),
                                           previewToImageP50: median(previews.map(\.previewToImageP50)))
        combined.placeholderFlashes = rounds.map(\.placeholderFlashes).reduce(0, +)
        combined.cellsConfiguredWithImageInMemory = rounds.map(\.cellsConfiguredWithImageInMemory).reduce(0, +)
        combined.wrongRowImages = rounds.map(\.wrongRowImages).reduce(0, +)
        combined.wrongRowFrames = rounds.map(\.wrongRowFrames).reduce(0, +)
        combined.bytesDownloaded = median(rounds.map(\.bytesDownloaded))
        combined.bytesShown = median(rounds.map(\.bytesShown))
        combined.bytesOnPredictedRowsNeverShown = median(rounds.map(\.bytesOnPredictedRowsNeverShown))
        combined.bytesNeverShown = median(rounds.map(\.bytesNeverShown))
        combined.unseenRows = []
        let uses = rounds.map(\.bytesByUse)
        combined.bytesByUse.shownAtRest = median(uses.map(\.shownAtRest))
        combined.bytesByUse.shownMoving = median(uses.map(\.shownMoving))
        combined.bytesByUse.predictedShownMoving = median(uses.map(\.predictedShownMoving))
        combined.bytesByUse.predictedNeverShown = median(uses.map(\.predictedNeverShown))
        combined.bytesByUse.otherNeverShown = median(uses.map(\.otherNeverShown))
        combined.restSamples = []
        let atRest = rounds.map(\.rowsAtRest)
        combined.rowsAtRest = RowsAtRest(shown: median(atRest.map(\.shown)), failed: median(atRest.map(\.failed)),
                                         waiting: median(atRest.map(\.waiting)))
        combined.failures = median(rounds.map(\.failures))
        combined.failureKinds = rounds.map(\.failureKinds).reduce(into: [:]) { $0.merge($1, uniquingKeysWith: +) }
        combined.retries = median(rounds.map(\.retries))
        combined.droppedRequests = median(rounds.map(\.droppedRequests))
        combined.requests = median(rounds.map(\.requests))
        combined.peakConcurrentDownloads = median(rounds.map(\.peakConcurrentDownloads))
        let sourceNames = Set(rounds.flatMap(\.sources.keys))
        combined.sources = Dictionary(uniqueKeysWithValues: sourceNames.map { name in (name, median(rounds.map { $0.sources[name] ?? 0 })) })
        combined.seconds = median(rounds.map(\.seconds))
        combined.rounds = rounds.count
        combined.perRound = rounds
        return combined
    }
}
