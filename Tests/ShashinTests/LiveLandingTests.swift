import Foundation
import ImageServer
import Shashin
import Testing

/// When each path's first request reached the server, stamped by the server's route as it arrives.
final class FirstArrivals: @unchecked Sendable { // `arrivals` behind `lock`
    private let lock = NSLock()
    private var arrivals: [String: Date] = [:]
    func record(_ path: String) { lock.withLock { if arrivals[path] == nil { arrivals[path] = Date() } } }
    var paths: Set<String> { lock.withLock { Set(arrivals.keys) } }
    func time(_ path: String) -> Date? { lock.withLock { arrivals[path] } }
}

/// A feed of reused cells over a live server, driven frame by frame like a collection view.
@MainActor
final class LiveFeed {
    let fixture: LiveFixture
    let loader: VisibleItemsLoader<Int>
    let log = FirstArrivals()
    private var cells: [Int: ImageBinding] = [:]
    private var pool: [ImageBinding] = []

    init(fixture: LiveFixture, rows: Int, policy: VisibleItemsLoader<Int>.Policy, latency: Duration, bytesPerSecond: Int? = nil) {
        self.fixture = fixture
        let log = self.log
        var urls: [URL] = []
        for row in 0..<rows {
            var script = RouteScript.image(ImageSpec(format: .jpeg, width: 40 + row % 20, height: 30, seed: UInt64(row)))
            script.latency = latency
            script.bytesPerSecond = bytesPerSecond
            let path = "/feed/\(row).jpg"
            let routeScript = script
            fixture.server.setRoute(path) { request in log.record(request.path); return routeScript }
            urls.append(fixture.server.url(path))
        }
        loader = VisibleItemsLoader(pipeline: fixture.pipeline, items: Array(0..<rows), policy: policy) { row in
            ImageRequest(url: urls[row], thumbnail: .init(maxPixelSize: 32))
        }
    }

    func show(_ visible: ClosedRange<Int>, _ scroll: ScrollState) {
        loader.update(visibleItems: Array(visible), scroll: scroll)
        for row in cells.keys where !visible.contains(row) { pool.append(cells.removeValue(forKey: row)!) }
        for row in visible where cells[row] == nil {
            let binding = pool.popLast() ?? ImageBinding(target: SizeRecordingTarget(), options: .init(pipeline: fixture.pipeline))
            cells[row] = binding
            loader.display(row, in: binding)
        }
    }

    func binding(_ row: Int) -> ImageBinding? { cells[row] }
    static func path(_ row: Int) -> String { "/feed/\(row).jpg" }
    var requestedRows: Set<Int> { Set(log.paths.compactMap { Int($0.dropFirst(6).dropLast(4)) }) }
}

@MainActor
@Suite("Over HTTP: loading where a fling lands")
struct LiveLandingTests {
    @Test func theLandingRowsReachTheServerBeforeTheFlingEndsAndTheRowsInBetweenNever() async throws {
        let fixture = try await LiveFixture.start()
        var policy = VisibleItemsLoader<Int>.Policy()
        policy.prefetchDistance = 2
        let feed = LiveFeed(fixture: fixture, rows: 300, policy: policy, latency: .milliseconds(50))
        let fling = { (velocity: Double) in ScrollState(phase: .decelerating, velocity: velocity, predictedRestingOffset: 200) }
        // 150 rows/s: fast (the rows flown past wait); the default policy loads the landing rows
        // as they become likely enough to be on screen at rest, the list nearing them.
        feed.loader.update(visibleItems: [], scroll: fling(150))
        // The finger lifts at the top; the list flies, five rows a frame, to row 150 at least and
        // on until the server has seen every landing row; at row 190 (ten rows short of the
        // landing, where every row of its window is likely enough to be on screen at rest, and
        // none on screen near enough to load) it flies on the spot, so a slow machine only makes
        // the fling longer.
        var top = 0
        let deadline = Date().addingTimeInterval(60)
        while top < 150 || !feed.requestedRows.isSuperset(of: 200...207) {
            guard Date() < deadline else { break }
            feed.show(top...(top + 7), fling(150))
            if top < 190 { top += 5 }
            try await Task.sleep(nanoseconds: 16_000_000)
        }
        let flingEnded = Date()
        #expect(feed.requestedRows.isSuperset(of: 200...207))
        for row in 200...207 { #expect(try #require(feed.log.time(LiveFeed.path(row))) < flingEnded) }
        feed.show(200...207, fling(3))
        feed.show(200...207, .idle)
        // Loaded during the fling (now from memory) or joined by the cells: each shows its image.
        try await waitOnActor {
            (200...207).allSatisfy { if case .success = feed.binding($0)?.state { true } else { false } } && feed.loader.prefetcher.count == 0
        }
        try await fixture.finish()
        // Nothing in between and nothing beyond where the list rests: only the landing rows, none twice.
        #expect(feed.requestedRows == Set(200...207))
        for row in 200...207 { #expect(fixture.server.requestCount(for: LiveFeed.path(row)) == 1) }
    }

    @Test func aCaughtFlingCancelsThePredictedRowsAndLoadsWhereTheListStops() async throws {
        let fixture = try await LiveFixture.start()
        var policy = VisibleItemsLoader<Int>.Policy()
        policy.prefetchDistance = 0
        policy.keepDistance = 8
        policy.landingThreshold = 0 // the whole window at the lift
        // Slow responses: the predicted rows are still downloading when the finger catches the list.
        let feed = LiveFeed(fixture: fixture, rows: 300, policy: policy, latency: .milliseconds(100), bytesPerSecond: 400)
        let fling = ScrollState(phase: .decelerating, velocity: 150, predictedRestingOffset: 200)
        feed.loader.update(visibleItems: [], scroll: fling)
        feed.show(0...3, fling)
        try await waitOnActor { feed.requestedRows.isSuperset(of: 200...203) }
        for top in stride(from: 5, through: 40, by: 5) { feed.show(top...(top + 3), fling) }
        feed.show(40...43, ScrollState(phase: .dragging, velocity: 0)) // caught, 150 rows short
        #expect(feed.loader.landingItems.isEmpty)
        feed.show(40...43, .idle)
        for row in 40...43 { #expect(feed.binding(row)?.priority == .high) }
        try await waitOnActor { (40...43).allSatisfy { feed.binding($0)?.state == .success(.none) } }
        try await fixture.finish()
        // Every predicted row was dropped before its body was sent (400 bytes a second).
        for row in 200...203 {
            let full = try await fixture.server.generator.data(for: ImageSpec(format: .jpeg, width: 40 + row % 20, height: 30, seed: UInt64(row))).count
            #expect(fixture.server.bytesSent(for: LiveFeed.path(row)) < full)
        }
        #expect(feed.requestedRows == Set(40...43).union(200...203))
    }
}
