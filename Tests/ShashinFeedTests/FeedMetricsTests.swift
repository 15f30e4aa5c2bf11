import Foundation
import Testing
@testable import ShashinFeed

/// Hand-made recordings with known answers: every figure `shashin demo` reports is scored here.
@Suite("FeedMetrics: scoring a recorded run")
struct FeedMetricsTests {
    /// Rows 0–19, two on screen: rest [0, 1), drag five rows over [1, 1.5), rest [1.5, 2.5).
    static let script = FeedScript(segments: [.rest(seconds: 1), .drag(rows: 5, seconds: 0.5), .rest(seconds: 1)])
    /// Row r's true image has fingerprint 1000 + r.
    static let truth = Dictionary(uniqueKeysWithValues: (0..<20).map { ($0, UInt64(1000 + $0)) })

    static func metrics(_ recording: FeedRecording, encodedBytes: [Int: Int] = [:]) -> FeedMetrics {
        FeedMetrics(recording, script: script, rows: 20, viewportRows: 2, truth: truth, encodedBytes: encodedBytes)
    }

    static func frame(_ time: Double, _ rows: [(Int, FeedRecording.RowState)]) -> FeedRecording.Frame {
        FeedRecording.Frame(time: time, rows: rows.map { (row: $0.0, state: $0.1) })
    }

    @Test func timeToImageCountsFromEachRowsLastEntryAndCensorsRowsNeverShown() {
        var recording = FeedRecording(strategy: "test")
        recording.seconds = 2.6
        recording.entries = [0: [0], 1: [0], 5: [1.4], 6: [1.45]]
        recording.imageEvents = [
            .init(time: 0.1, row: 0, fingerprint: 1000),
            .init(time: 0.2, row: 1, fingerprint: 1004), // another row's image: not this row's time
            .init(time: 0.3, row: 1, fingerprint: 1001),
            .init(time: 1.6, row: 5, fingerprint: 1005),
            // row 6 never shows its image: censored at the end of the rest (2.5 − 1.45 s)
        ]
        let t = Self.metrics(recording).timeToImageAtRestMs
        // Samples 0.1, 0.3, 0.2, 1.05 s: sorted 0.1, 0.2, 0.3, 1.05.
        #expect(t.samples == 4)
        #expect(t.censored == 1)
        #expect(abs(t.p50 - 200) < 1e-6)
        #expect(abs(t.p95 - 1050) < 1e-6)
        #expect(abs(t.max - 1050) < 1e-6)
    }

    @Test func anImageShownBeforeTheRowCameBackDoesNotCountForTheNewVisit() {
        var recording = FeedRecording(strategy: "test")
        recording.seconds = 2.6
        // Row 5 showed its image at 1.1, left, and came back at 1.45; it shows again at 1.9.
        recording.entries = [0: [0], 1: [0], 5: [1.05, 1.45], 6: [1.45]]
        recording.imageEvents = [
            .init(time: 0, row: 0, fingerprint: 1000), .init(time: 0, row: 1, fingerprint: 1001),
            .init(time: 1.1, row: 5, fingerprint: 1005), .init(time: 1.9, row: 5, fingerprint: 1005),
            .init(time: 1.55, row: 6, fingerprint: 1006),
        ]
        let t = Self.metrics(recording).timeToImageAtRestMs
        #expect(t.censored == 0)
        #expect(abs(t.max - 450) < 1e-6) // row 5: 1.9 − 1.45
    }

    @Test func aRunThatEndsBeforeTheRestEndsCensorsAtItsEnd() {
        var recording = FeedRecording(strategy: "test")
        recording.seconds = 2.0
        recording.entries = [0: [0], 1: [0], 5: [1.5], 6: [1.5]]
        recording.imageEvents = [.init(time: 0.05, row: 0, fingerprint: 1000), .init(time: 0.05, row: 1, fingerprint: 1001),
                                 .init(time: 2.2, row: 5, fingerprint: 1005)] // after the recording ended: not counted
        let t = Self.metrics(recording).timeToImageAtRestMs
        #expect(t.censored == 2)
        #expect(abs(t.max - 500) < 1e-6)
    }

    @Test func rowsAtRestAreScoredByWhatTheLastFrameOfTheRestShowed() {
        var recording = FeedRecording(strategy: "test")
        recording.seconds = 2.6
        recording.entries = [0: [0], 1: [0], 5: [1.45], 6: [1.45]]
        recording.frames = [
            // First rest: row 0 shows its own image, row 1 failed after showing a placeholder.
            Self.frame(0.5, [(0, .placeholder), (1, .placeholder)]),
            Self.frame(0.99, [(0, .image(fingerprint: 1000)), (1, .failure)]),
            Self.frame(1.2, [(0, .failure), (1, .failure)]), // moving: not a rest's last frame
            // Second rest: row 5 shows row 6's image (not its own), row 6 still waits.
            Self.frame(2.49, [(5, .image(fingerprint: 1006)), (6, .placeholder)]),
            Self.frame(2.55, [(5, .image(fingerprint: 1005)), (6, .image(fingerprint: 1006))]), // after the rest
        ]
        recording.failures = 1
        recording.retries = 2
        recording.droppedRequests = 3
        let metrics = Self.metrics(recording)
        #expect(metrics.rowsAtRest == FeedMetrics.RowsAtRest(shown: 1, failed: 1, waiting: 2))
        #expect(metrics.failures == 1 && metrics.retries == 2 && metrics.droppedRequests == 3)
        let twice = FeedMetrics.combining([metrics, metrics])
        #expect(twice.rowsAtRest == metrics.rowsAtRest)
        #expect(twice.droppedRequests == 3)
    }

    @Test func wrongRowImagesCountOncePerVisitAndWrongFramesEveryFrame() {
        let frames = [
            Self.frame(0.00, [(3, .image(fingerprint: 1004)), (4, .placeholder)]), // row 3 shows row 4's image
            Self.frame(0.02, [(3, .image(fingerprint: 1004)), (4, .image(fingerprint: 1004))]),
            Self.frame(0.03, [(3, .placeholder), (4, .image(fingerprint: 1004))]),
            Self.frame(0.05, [(3, .image(fingerprint: 1004)), (4, .image(fingerprint: 1004))]), // again: a second image
            Self.frame(0.07, [(4, .image(fingerprint: 1004))]),                                 // row 3 left
            Self.frame(0.08, [(3, .image(fingerprint: 1007)), (4, .image(fingerprint: 1004))]), // back, another wrong one
            Self.frame(0.10, [(3, .image(fingerprint: 1003)), (4, .failure)]),
        ]
        let counted = FeedMetrics.wrongRows(in: frames, truth: Self.truth)
        #expect(counted.images == 3)
        #expect(counted.frames == 4)
        #expect(FeedMetrics.wrongRows(in: [Self.frame(0, [(3, .image(fingerprint: 1003)), (4, .empty)])], truth: Self.truth) == (0, 0))
    }

    @Test func aMemoryConfigureThatShowsAPlaceholderOrNoImageIsAFlash() {
        var recording = FeedRecording(strategy: "test")
        recording.recordMemoryConfigure(placeholdersBefore: 2, placeholdersAfter: 2, showsImage: true)  // clean
        recording.recordMemoryConfigure(placeholdersBefore: 2, placeholdersAfter: 3, showsImage: true)  // placeholder, then image
        recording.recordMemoryConfigure(placeholdersBefore: 3, placeholdersAfter: 3, showsImage: false) // nothing shown
        let metrics = Self.metrics(recording)
        #expect(metrics.cellsConfiguredWithImageInMemory == 3)
        #expect(metrics.placeholderFlashes == 2)
    }

    @Test func bytesShownAndBytesOnPredictedRowsNeverShown() {
        var recording = FeedRecording(strategy: "test")
        recording.seconds = 2.6
        recording.imageEvents = [.init(time: 0.1, row: 0, fingerprint: 1000), .init(time: 0.1, row: 8, fingerprint: 1009)]
        recording.predictedRows = [0, 8, 9, 12]
        recording.bytesByRow = [0: 500, 8: 700, 9: 900, 12: 0, 13: 5000]
        let metrics = Self.metrics(recording, encodedBytes: [0: 400, 8: 600])
        #expect(metrics.bytesShown == 400)                     // row 8 showed row 9's image: not shown
        #expect(metrics.bytesOnPredictedRowsNeverShown == 1600) // rows 8 and 9 (row 13 was never predicted)
    }

    @Test func roundsCombineAsMediansWithZeroCountsSummed() {
        func round(p95: Double, bytes: Int, wrong: Int) -> FeedMetrics {
            var recording = FeedRecording(strategy: "test")
            recording.bytesSent = bytes
            var metrics = Self.metrics(recording)
            metrics.timeToImageAtRestMs.p95 = p95
            metrics.wrongRowImages = wrong
            metrics.placeholderFlashes = wrong
            return metrics
        }
        let combined = FeedMetrics.combining([round(p95: 300, bytes: 10, wrong: 0), round(p95: 100, bytes: 30, wrong: 2),
                                              round(p95: 200, bytes: 20, wrong: 1)])
        #expect(combined.timeToImageAtRestMs.p95 == 200)
        #expect(combined.bytesDownloaded == 20)
        #expect(combined.wrongRowImages == 3)
        #expect(combined.placeholderFlashes == 3)
        #expect(combined.rounds == 3)
        #expect(combined.perRound?.count == 3)
    }
}

/// Progressive previews in a recording: not the image, never wrong, counted on their own.
@Suite("FeedMetrics: progressive previews")
struct FeedMetricsPreviewTests {
    typealias T = FeedMetricsTests

    @Test func aPreviewIsNotTheImageAndCountsFromEntryToPreviewAndPreviewToImage() {
        var recording = FeedRecording(strategy: "test")
        recording.seconds = 2.6
        recording.entries = [0: [0], 1: [0], 5: [1.4], 6: [1.45]]
        recording.imageEvents = [
            .init(time: 0.3, row: 0, fingerprint: 1000), .init(time: 0.1, row: 1, fingerprint: 1001),
            .init(time: 1.8, row: 5, fingerprint: 1005),
            // row 6 never shows its image: censored at the end of the rest
        ]
        recording.previewEvents = [
            0: [0.05, 0.2],  // two previews, then its image at 0.3
            5: [1.3, 1.5],   // 1.3: a preview before this visit, not counted; 1.5 is
            6: [1.65],       // a preview, and no image before the rest ended
            1: [0.4],        // after its image: not a preview before it
        ]
        let metrics = T.metrics(recording)
        let t = metrics.timeToImageAtRestMs
        // Samples 0.3, 0.1, 0.4, 1.05 s: previews do not end the wait.
        #expect(t.samples == 4 && t.censored == 1)
        #expect(abs(t.p50 - 300) < 1e-6)
        let p = metrics.previewsAtRest
        #expect(p.rows == 3)                                // rows 0, 5 and 6
        #expect(abs(p.timeToPreviewP50 - 100) < 1e-6)       // 0.05, 0.1, 0.2 s
        #expect(abs(p.previewToImageP50 - 275) < 1e-6)      // rows 0 (0.25 s) and 5 (0.3 s)
    }

    @Test func aRunWithoutPreviewsCountsNone() {
        var recording = FeedRecording(strategy: "test")
        recording.seconds = 2.6
        recording.entries = [0: [0], 1: [0]]
        recording.imageEvents = [.init(time: 0.1, row: 0, fingerprint: 1000), .init(time: 0.2, row: 1, fingerprint: 1001)]
        #expect(T.metrics(recording).previewsAtRest == .init(rows: 0, timeToPreviewP50: 0, previewToImageP50: 0))
    }

    @Test func aPreviewIsNeverAWrongRowImage() {
        let frames = [
            T.frame(0.00, [(3, .placeholder), (4, .preview)]),
            T.frame(0.02, [(3, .preview), (4, .preview)]),
            T.frame(0.03, [(3, .image(fingerprint: 1003)), (4, .image(fingerprint: 1004))]),
        ]
        #expect(FeedMetrics.wrongRows(in: frames, truth: T.truth) == (0, 0))
    }

    @Test func roundsCombinePreviewFiguresAsMedians() {
        func round(rows: Int, toPreview: Double) -> FeedMetrics {
            var metrics = T.metrics(FeedRecording(strategy: "test"))
            metrics.previewsAtRest = .init(rows: rows, timeToPreviewP50: toPreview, previewToImageP50: toPreview * 2)
            return metrics
        }
        let combined = FeedMetrics.combining([round(rows: 4, toPreview: 90), round(rows: 9, toPreview: 30), round(rows: 6, toPreview: 60)])
        #expect(combined.previewsAtRest == .init(rows: 6, timeToPreviewP50: 60, previewToImageP50: 120))
    }

    @Test func eachRestVisitRecordsItsRestItsRequestAndItsSize() throws {
        var recording = FeedRecording(strategy: "test")
        recording.seconds = 2.6
        recording.entries = [0: [0], 1: [0], 5: [1.4], 6: [1.45]]
        recording.imageEvents = [.init(time: 0.1, row: 0, fingerprint: 1000), .init(time: 0.3, row: 1, fingerprint: 1001),
                                 .init(time: 1.6, row: 5, fingerprint: 1005)]
        // Row 5 was asked for twice; the request that counts is the last before its image.
        recording.requestTimes = [0: [0.02], 5: [1.3, 1.5, 1.7], 6: [1.47]]
        let samples = T.metrics(recording, encodedBytes: [5: 5000]).restSamples
        #expect(samples.map(\.rest) == [0, 0, 1, 1])
        #expect(samples.map(\.row) == [0, 1, 5, 6])
        #expect(samples.map(\.censored) == [false, false, false, true])
        let expected: [(ms: Double, requested: Double?)] = [(100, 20), (300, nil), (200, 100), (1050, 20)]
        for (sample, want) in zip(samples, expected) {
            #expect(abs(sample.ms - want.ms) < 1e-6)
            #expect(sample.requestedMs.map { abs($0 - want.requested!) < 1e-6 } ?? (want.requested == nil))
        }
        #expect(samples[2].encodedBytes == 5000 && samples[0].encodedBytes == nil)
    }

    @Test func bytesSplitByWhatBecameOfTheirRows() {
        var recording = FeedRecording(strategy: "test")
        recording.seconds = 2.6
        recording.entries = [0: [0], 1: [0], 3: [1.2], 5: [1.4], 6: [1.45], 8: [1.3]]
        recording.imageEvents = [.init(time: 0.1, row: 0, fingerprint: 1000), .init(time: 1.25, row: 3, fingerprint: 1003),
                                 .init(time: 1.35, row: 8, fingerprint: 1009)] // row 8 only ever showed another row's image
        recording.predictedRows = [3, 8, 6]
        recording.bytesByRow = [0: 100, 1: 200, 5: 300, 6: 400, 3: 1000, 8: 2000, 12: 4000, 13: 8000]
        let metrics = T.metrics(recording)
        var expected = FeedMetrics.BytesByUse()
        expected.shownAtRest = 1000            // rows 0, 1, 5, 6: on screen at a rest, shown or not
        expected.shownMoving = 1000            // row 3
        expected.predictedShownMoving = 1000
        expected.predictedNeverShown = 2000    // row 8
        expected.otherNeverShown = 12000       // rows 12, 13
        #expect(metrics.bytesByUse == expected)
        #expect(metrics.bytesOnPredictedRowsNeverShown == 2400) // rows 8 and 6 (never its own image)
    }

    @Test func bytesNeverShownCountEveryRowThatNeverShowedItsOwnImageAtRestOrMoving() {
        var recording = FeedRecording(strategy: "test")
        recording.seconds = 2.6
        recording.entries = [0: [0], 1: [0], 3: [1.2], 5: [1.4], 6: [1.45], 8: [1.3]]
        recording.imageEvents = [.init(time: 0.1, row: 0, fingerprint: 1000), .init(time: 1.25, row: 3, fingerprint: 1003),
                                 .init(time: 1.35, row: 8, fingerprint: 1009), .init(time: 1.5, row: 5, fingerprint: 1005)]
        recording.predictedRows = [3, 8, 6]
        recording.bytesByRow = [0: 100, 1: 200, 5: 300, 6: 400, 3: 1000, 8: 2000, 12: 4000, 13: 8000, 14: 0]
        recording.requestTimes = [8: [1.1, 1.3], 12: [2.0]]
        let metrics = T.metrics(recording)
        // Rows 1 and 6 (at rest, never their image), 8 (only another row's image), 12 and 13 (never on
        // screen); row 14 took no bytes. Rows 0, 3 and 5 showed their own.
        #expect(metrics.bytesNeverShown == 200 + 400 + 2000 + 4000 + 8000)
        #expect(metrics.unseenRows == [
            .init(row: 1, bytes: 200, predicted: false, requestedAt: []),
            .init(row: 6, bytes: 400, predicted: true, requestedAt: []),
            .init(row: 8, bytes: 2000, predicted: true, requestedAt: [1.1, 1.3]),
            .init(row: 12, bytes: 4000, predicted: false, requestedAt: [2.0]),
            .init(row: 13, bytes: 8000, predicted: false, requestedAt: []),
        ])
        let combined = FeedMetrics.combining([metrics, T.metrics(FeedRecording(strategy: "test")), metrics])
        #expect(combined.bytesNeverShown == metrics.bytesNeverShown) // the median of the rounds
        #expect(combined.unseenRows.isEmpty && combined.perRound?[0].unseenRows.count == 5)
    }
}
