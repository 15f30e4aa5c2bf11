import Foundation
import ImageServer
import Shashin
import ShashinFeed

/// Plays the script against one strategy in real time: a frame every 1/60 s, a viewport of
/// `viewportRows` rows over `rows`, a pool of reused cells; records what every visible row shows.
@MainActor
final class FeedRun {
    let strategy: any FeedStrategy
    let script: FeedScript
    let rows: Int
    let viewportRows: Int
    let server: ImageServer
    let catalog: FeedCatalog
    static let framesPerSecond = 60.0

    private var recording: FeedRecording
    private var visible: [Int: FeedCell] = [:]
    private var pool: [FeedCell] = []
    private var cellCount = 0
    private var startedAt = ContinuousClock.now

    init(strategy: any FeedStrategy, script: FeedScript, rows: Int, viewportRows: Int, server: ImageServer, catalog: FeedCatalog) {
        self.strategy = strategy
        self.script = script
        self.rows = rows
        self.viewportRows = viewportRows
        self.server = server
        self.catalog = catalog
        recording = FeedRecording(strategy: strategy.name)
    }

    /// The rows on screen when the top of the viewport is at `offset`.
    nonisolated static func visibleRows(offset: Double, viewportRows: Int, rows: Int) -> [Int] {
        FeedScript.visibleRows(offset: offset, viewportRows: viewportRows, rows: rows)
    }

    func run() async throws -> FeedRecording {
        server.resetCounters()
        startedAt = ContinuousClock.now
        let maxOffset = Double(max(0, rows - viewportRows))
        var frame = 0
        while true {
            let time = now
            guard time <= script.duration else { break }
            let moment = script.moment(at: time, maxOffset: maxOffset)
            step(time: time, moment: moment)
            frame += 1
            try await Task.sleep(until: startedAt + .seconds(Double(frame) / Self.framesPerSecond), clock: .continuous)
        }
        recording.seconds = now
        recording.bytesSent = server.bytesSent
        recording.requests = server.totalRequests
        recording.maxInFlight = server.maxInFlight
        recording.sources = strategy.sources
        recording.failures = strategy.failures
        recording.failureKinds = strategy.failureKinds
        recording.retries = strategy.retries
        recording.droppedRequests = server.droppedRequests
        for row in 0..<rows {
            let bytes = server.bytesSent(for: path(of: row))
            if bytes > 0 || recording.predictedRows.contains(row) { recording.bytesByRow[row] = bytes }
        }
        finalScreen = screen.map { row, cell in
            let image: Bitmap? = switch cell.content {
            case .image(let bitmap), .preview(let bitmap): bitmap
            case .empty, .placeholder, .failure: nil
            }
            return (row, image, recording.frames.last?.rows.first { $0.row == row }?.state ?? .empty)
        }
        await strategy.finish()
        let deadline = ContinuousClock.now + .seconds(10)
        while server.inFlight > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        return recording
    }

    /// The last frame of the script, taken before the strategy stopped: each visible row, the
    /// image its cell showed and its state.
    private(set) var finalScreen: [(row: Int, image: Bitmap?, state: FeedRecording.RowState)] = []

    /// Each visible row's cell now.
    private var screen: [(row: Int, cell: FeedCell)] {
        visible.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    private var now: Double {
        let elapsed = ContinuousClock.now - startedAt
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// One frame, in UIKit's order: the cells that came on screen are configured (reused cells
    /// first) during layout, and the scroll callback that reports them visible comes after.
    private func step(time: Double, moment: FeedScript.Moment) {
        let rowsNow = Self.visibleRows(offset: moment.offset, viewportRows: viewportRows, rows: rows)
        let onScreen = Set(rowsNow)
        for (row, cell) in visible where !onScreen.contains(row) {
            visible[row] = nil
            pool.append(cell)
        }
        for row in rowsNow where visible[row] == nil {
            let cell = pool.popLast() ?? makeCell()
            cell.prepare(for: row)
            visible[row] = cell
            recording.entries[row, default: []].append(time)
            let inMemory = strategy.isInMemory(row)
            let placeholders = cell.placeholdersShown
            strategy.configure(cell, row: row)
            if inMemory {
                recording.recordMemoryConfigure(placeholdersBefore: placeholders, placeholdersAfter: cell.placeholdersShown,
                                                showsImage: cell.fingerprint != nil)
            }
        }
        // The landing the scroll state carries was predicted when the finger lifted (the script
        // never reads its own future): its rows are the ones a strategy may load ahead.
        if let landing = moment.scroll.predictedRestingOffset {
            recording.predictedRows.formUnion(Self.visibleRows(offset: landing, viewportRows: viewportRows, rows: rows))
        }
        strategy.scrolled(visibleRows: rowsNow, scroll: moment.scroll)
        noteRequests(time: time, near: rowsNow, landing: moment.scroll.predictedRestingOffset)
        recording.frames.append(FeedRecording.Frame(time: time, rows: rowsNow.map { row in
            let cell = visible[row]!
            let state: FeedRecording.RowState = switch cell.content {
            case .empty: .empty
            case .placeholder: .placeholder
            case .preview: .preview
            case .image: .image(fingerprint: cell.fingerprint ?? 0)
            case .failure: .failure
            }
            return (row, state)
        }))
    }

    /// Requests the server received since the last frame for the rows a strategy may be loading:
    /// those within `requestWatchDistance` of the screen or of the predicted landing.
    private func noteRequests(time: Double, near rowsNow: [Int], landing: Double?) {
        var watched: [ClosedRange<Int>] = []
        if let first = rowsNow.first, let last = rowsNow.last {
            watched.append(max(0, first - Self.requestWatchDistance)...min(rows - 1, last + Self.requestWatchDistance))
        }
        if let landing {
            let first = Int(min(max(0, landing), Double(rows - 1)))
            watched.append(max(0, first - Self.requestWatchDistance)...min(rows - 1, first + viewportRows + Self.requestWatchDistance))
        }
        for row in Set(watched.joined()) {
            let count = server.requestCount(for: path(of: row))
            let seen = requestCounts[row] ?? 0
            guard count > seen else { continue }
            requestCounts[row] = count
            recording.requestTimes[row, default: []].append(contentsOf: repeatElement(time, count: count - seen))
        }
    }

    /// Rows beyond the screen or the landing window whose requests ``noteRequests`` watches:
    /// farther than a strategy prefetches or keeps loads.
    private static let requestWatchDistance = 16
    private var requestCounts: [Int: Int] = [:]

    private func path(of row: Int) -> String { catalog.url(of: row, on: server).path }

    private func makeCell() -> FeedCell {
        cellCount += 1
        return FeedCell(id: cellCount, onImage: { [weak self] cell, fingerprint in
            guard let self, let row = cell.row else { return }
            recording.imageEvents.append(.init(time: now, row: row, fingerprint: fingerprint))
        }, onPreview: { [weak self] cell in
            guard let self, let row = cell.row else { return }
            recording.previewEvents[row, default: []].append(now)
        })
    }
}
