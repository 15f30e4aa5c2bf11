import Foundation
import Testing
@testable import ShashinCore

/// The two orders a view layer calls a ``VisibleItemsLoader`` in on a frame where rows come on
/// screen: the scroll callback first, or (as UIKit does) the reused cells' configuration first.
enum CallOrder: String, CaseIterable, CustomTestStringConvertible {
    case updateThenDisplay, displayThenUpdate
    var testDescription: String { rawValue }
}

/// A list of `count` rows whose images are `row-<n>`, and a pool of cells with their bindings.
@MainActor
final class ListFixture {
    let fixture: PipelineFixture
    let loader: VisibleItemsLoader<Int>
    let order: CallOrder
    private var cells: [Int: (RecordingTarget, ImageBinding)] = [:]
    private var pool: [(RecordingTarget, ImageBinding)] = []

    init(count: Int, policy: VisibleItemsLoader<Int>.Policy = .init(), order: CallOrder = .updateThenDisplay,
         configure: (inout ImagePipeline.Configuration) -> Void = { _ in }) {
        fixture = PipelineFixture(configure)
        self.order = order
        loader = VisibleItemsLoader(pipeline: fixture.pipeline, items: Array(0..<count), policy: policy) { row in
            ImageRequest(url: PipelineFixture.url("row-\(row)"))
        }
    }

    /// The row of a `row-<n>` URL; -1 for any other.
    static func row(of url: URL) -> Int { Int(url.lastPathComponent.dropFirst(4)) ?? -1 }

    /// Scrolls to `visible`: updates the loader, and reuses the cells of rows that left for rows
    /// that came, in the fixture's call order.
    func show(_ visible: ClosedRange<Int>, _ scroll: ScrollState) {
        if order == .updateThenDisplay { loader.update(visibleItems: Array(visible), scroll: scroll) }
        for row in cells.keys where !visible.contains(row) { pool.append(cells.removeValue(forKey: row)!) }
        for row in visible where cells[row] == nil {
            let cell = pool.popLast() ?? makeCell()
            cells[row] = cell
            loader.display(row, in: cell.1)
        }
        if order == .displayThenUpdate { loader.update(visibleItems: Array(visible), scroll: scroll) }
    }

    /// A cell outside the pool, as a collection view's cell prefetching configures one.
    func makeCell() -> (RecordingTarget, ImageBinding) {
        let target = RecordingTarget()
        return (target, ImageBinding(target: target, options: .init(pipeline: fixture.pipeline)))
    }

    func binding(_ row: Int) -> ImageBinding? { cells[row]?.1 }

    /// Downloads of `row` the loader started so far.
    func starts(of row: Int) -> Int {
        fixture.loader.startedURLs.filter { $0 == PipelineFixture.url("row-\(row)") }.count
    }

    var cancelledRows: Set<Int> { Set(fixture.loader.cancelledURLs.map(Self.row)) }
}

@MainActor
@Suite("VisibleItemsLoader: scroll-aware loading")
struct VisibleItemsLoaderTests {
    @Test(arguments: CallOrder.allCases)
    func aFastFlingStartsNoDownloadsUntilTheListSlowsDown(order: CallOrder) async throws {
        var policy = VisibleItemsLoader<Int>.Policy()
        policy.prefetchDistance = 0
        let list = ListFixture(count: 300, policy: policy, order: order)
        // The list is already flinging when its first rows appear.
        list.loader.update(visibleItems: [], scroll: ScrollState(phase: .decelerating, velocity: 80))
        for top in stride(from: 0, through: 180, by: 4) {
            list.show(top...(top + 3), ScrollState(phase: .decelerating, velocity: 80))
        }
        // No task was made, so nothing can be queued for the network either.
        #expect(list.fixture.pipeline.activeTaskCount == 0)
        #expect(list.fixture.pipeline.graph.jobCount == 0)
        #expect(list.binding(180)?.state == .deferred)

        list.show(180...183, .idle)
        try await list.fixture.loader.waitForPendingCount(4)
        #expect(Set(list.fixture.loader.startedURLs.map(ListFixture.row)) == Set(180...183))
        #expect(list.binding(181)?.priority == .high)
        list.loader.stop()
    }

    @Test func memoryHitsShowDuringAFastFling() async throws {
        let list = ListFixture(count: 100)
        let cached = ImageRequest(url: PipelineFixture.url("row-42"))
        list.fixture.cache.store(TestImages.makeImage(width: 2, height: 2, fill: 42), forKey: cached.cacheKey)
        list.show(40...43, ScrollState(phase: .decelerating, velocity: -60))
        #expect(list.binding(42)?.state == .success(.memory))
        #expect(list.binding(41)?.state == .deferred)
    }

    @Test func aDeferredRowShowsItsImageOnceItReachesMemoryDuringTheFling() async throws {
        let list = ListFixture(count: 100)
        let fling = ScrollState(phase: .decelerating, velocity: 60)
        list.show(40...43, fling)
        #expect(list.binding(42)?.state == .deferred)
        // Another load brings row 42's image into memory while the list still flies.
        let request = ImageRequest(url: PipelineFixture.url("row-42"))
        list.fixture.cache.store(TestImages.makeImage(width: 2, height: 2, fill: 42), forKey: request.cacheKey)
        list.show(40...43, fling)
        #expect(list.binding(42)?.state == .success(.memory))
        #expect(list.binding(41)?.state == .deferred)
        #expect(list.fixture.pipeline.activeTaskCount == 0)
    }

    @Test func itemsAheadInTheScrollDirectionArePrefetchedAtLowPriority() async throws {
        var policy = VisibleItemsLoader<Int>.Policy()
        policy.prefetchDistance = 2
        let list = ListFixture(count: 100, policy: policy) { $0.maxConcurrentDownloads = 1 }
        let busy = list.fixture.task(PipelineFixture.request("busy"))
        try await list.fixture.loader.waitForPendingCount(1)
        list.show(10...11, ScrollState(phase: .dragging, velocity: 6)) // it would coast 3 rows: two prefetched
        #expect(list.loader.prefetchingItems == [12, 13])
        // A request at normal priority, queued after all of them.
        let normal = list.fixture.task(PipelineFixture.request("normal"))
        try await waitUntil { list.fixture.pipeline.graph.networkQueue.pendingCount == 5 }

        // Released one at a time: the visible rows (high), then the normal request, then the prefetches (low).
        var order: [String] = []
        try await list.fixture.loader.respond(to: PipelineFixture.url("busy"), with: PipelineFixture.imageData(fill: 0))
        for _ in 0..<5 {
            try await list.fixture.loader.waitForPendingCount(1)
            let url = list.fixture.loader.pendingURLs[0]
            order.append(url.lastPathComponent)
            try await list.fixture.loader.respond(to: url, with: PipelineFixture.imageData(fill: 1))
        }
        #expect(Set(order.prefix(2)) == ["row-10", "row-11"])
        #expect(order[2] == "normal")
        #expect(Set(order.suffix(2)) == ["row-12", "row-13"])
        _ = try await busy.image
        _ = try await normal.image
        try await waitUntil { list.loader.prefetcher.count == 0 }
        try await list.fixture.waitUntilIdle()
    }

    @Test func prefetchingFollowsTheScrollDirectionAndStopsDuringAFling() async throws {
        var policy = VisibleItemsLoader<Int>.Policy()
        policy.prefetchDistance = 3
        let list = ListFixture(count: 100, policy: policy)
        list.show(10...13, ScrollState(phase: .dragging, velocity: -8))
        #expect(list.loader.prefetchingItems == [7, 8, 9])
        list.show(10...13, ScrollState(phase: .dragging, velocity: 8))
        #expect(list.loader.prefetchingItems == [14, 15, 16])
        list.show(50...53, ScrollState(phase: .decelerating, velocity: 90))
        #expect(list.loader.prefetchingItems.isEmpty) // not while flinging
        // Rows 10...13 left loading, already farther than the keep distance: nothing loads any more.
        try await waitUntil { list.fixture.loader.pendingURLs.isEmpty }
        try await list.fixture.waitUntilIdle()
    }

    @Test(arguments: CallOrder.allCases)
    func aPrefetchedRowThatComesOnScreenKeepsItsDownload(order: CallOrder) async throws {
        var policy = VisibleItemsLoader<Int>.Policy()
        policy.prefetchDistance = 2
        let list = ListFixture(count: 100, policy: policy, order: order) { $0.maxConcurrentDownloads = 20 }
        list.show(0...3, ScrollState(phase: .dragging, velocity: 6))
        try await list.fixture.loader.waitForPendingCount(6) // four rows on screen, two prefetched
        list.show(2...5, ScrollState(phase: .dragging, velocity: 6))
        try await list.fixture.loader.waitForPendingCount(8) // rows 6 and 7 prefetched now
        await list.fixture.flushGraph()
        #expect(list.cancelledRows.isDisjoint(with: [4, 5]))
        #expect(list.binding(4)?.priority == .high)
        try await list.fixture.loader.respond(to: PipelineFixture.url("row-4"), with: PipelineFixture.imageData(fill: 4))
        try await waitUntil { list.binding(4)?.state == .success(.none) }
        #expect(list.starts(of: 4) == 1)
        list.loader.stop()
        list.show(2...5, .idle)
    }

    @Test(arguments: CallOrder.allCases)
    func rowsThatLeftDropToTheLowestPriorityAndAreCancelledFarAway(order: CallOrder) async throws {
        var policy = VisibleItemsLoader<Int>.Policy()
        policy.prefetchDistance = 0
        policy.keepDistance = 5
        let list = ListFixture(count: 100, policy: policy, order: order) { $0.maxConcurrentDownloads = 1 }
        let busy = list.fixture.task(ImageRequest(url: PipelineFixture.url("busy")))
        try await list.fixture.loader.waitForPendingCount(1)

        list.show(0...3, .idle)                                      // four rows queue at high
        list.show(2...5, ScrollState(phase: .dragging, velocity: 2)) // rows 0 and 1 leave; their cells show 4 and 5
        #expect(list.loader.leavingItems == [0, 1])
        try await waitUntil { list.fixture.pipeline.graph.networkQueue.pendingCount == 6 }

        // Released one at a time, the rows on screen go first and the rows that left last.
        var order: [Int] = []
        try await list.fixture.loader.respond(to: PipelineFixture.url("busy"), with: PipelineFixture.imageData(fill: 0))
        for _ in 0..<6 {
            try await list.fixture.loader.waitForPendingCount(1)
            let url = list.fixture.loader.pendingURLs[0]
            order.append(ListFixture.row(of: url))
            try await list.fixture.loader.respond(to: url, with: PipelineFixture.imageData(fill: 1))
        }
        #expect(Set(order.prefix(4)) == [2, 3, 4, 5])
        #expect(Set(order.suffix(2)) == [0, 1])
        #expect(list.fixture.loader.cancelledURLs.isEmpty)
        // The rows that left still reached the memory cache.
        try await waitUntil { list.loader.leavingItems.isEmpty }
        #expect(list.fixture.pipeline.cachedImage(for: ImageRequest(url: PipelineFixture.url("row-0"))) != nil)
        _ = try await busy.image
        try await list.fixture.waitUntilIdle()
    }

    @Test(arguments: CallOrder.allCases)
    func rowsThatLeftAreCancelledBeyondTheKeepDistance(order: CallOrder) async throws {
        var policy = VisibleItemsLoader<Int>.Policy()
        policy.prefetchDistance = 0
        policy.keepDistance = 5
        let list = ListFixture(count: 100, policy: policy, order: order) { $0.maxConcurrentDownloads = 20 }
        list.show(0...3, .idle)
        try await list.fixture.loader.waitForPendingCount(4)
        list.show(4...7, ScrollState(phase: .dragging, velocity: 4)) // 0...3 left, within 5 rows: kept
        try await list.fixture.loader.waitForPendingCount(8)
        #expect(list.loader.leavingItems == [0, 1, 2, 3])
        await list.fixture.flushGraph()
        #expect(list.fixture.loader.cancelledURLs.isEmpty)

        list.show(7...10, ScrollState(phase: .dragging, velocity: 4)) // rows 0 and 1 are now 6 and 7 rows away
        #expect(list.loader.leavingItems == [2, 3, 4, 5, 6])
        try await waitUntil { list.cancelledRows == [0, 1] }
        list.loader.stop()
        list.show(7...10, .idle)
    }

    @Test(arguments: CallOrder.allCases)
    func aRowFlungBackOnScreenJoinsTheDownloadItLeftBehind(order: CallOrder) async throws {
        var policy = VisibleItemsLoader<Int>.Policy()
        policy.prefetchDistance = 0
        let list = ListFixture(count: 100, policy: policy, order: order) { $0.maxConcurrentDownloads = 20 }
        list.show(0...3, .idle)
        try await list.fixture.loader.waitForPendingCount(4)
        list.show(4...7, ScrollState(phase: .dragging, velocity: 4))  // 0...3 left, kept loading
        try await list.fixture.loader.waitForPendingCount(8)
        list.show(0...3, ScrollState(phase: .decelerating, velocity: -80)) // flung back, fast
        await list.fixture.flushGraph()
        #expect(list.fixture.loader.cancelledURLs.isEmpty)
        #expect(list.binding(0)?.state == .loading)
        #expect(list.loader.leavingItems == [4, 5, 6, 7])

        list.show(0...3, .idle)
        #expect(list.binding(0)?.priority == .high)
        try await list.fixture.loader.respond(to: PipelineFixture.url("row-0"), with: PipelineFixture.imageData(fill: 9))
        try await waitUntil { list.binding(0)?.state == .success(.none) }
        #expect((list.binding(0)?.target as? RecordingTarget)?.imagesShown == [9])
        #expect(list.starts(of: 0) == 1)
        #expect(list.fixture.loader.cancelledURLs.isEmpty)
        list.loader.stop()
    }

    @Test(arguments: CallOrder.allCases)
    func aCellConfiguredAheadOfTimeLoadsBelowTheVisibleRows(order: CallOrder) async throws {
        var policy = VisibleItemsLoader<Int>.Policy()
        policy.prefetchDistance = 2
        policy.keepDistance = 5
        let list = ListFixture(count: 100, policy: policy, order: order) { $0.maxConcurrentDownloads = 20 }
        list.show(0...3, .idle)
        // A collection view's cell prefetching configures rows 5 and 8 before they are visible.
        let ahead = list.makeCell(), farther = list.makeCell()
        list.loader.display(5, in: ahead.1)
        list.loader.display(8, in: farther.1)
        #expect(ahead.1.priority == .high)
        list.show(0...3, ScrollState(phase: .dragging, velocity: 4))
        #expect(ahead.1.priority == .low)        // within the prefetch window
        #expect(farther.1.priority == .veryLow)  // below it, still within the keep distance
        list.show(0...3, ScrollState(phase: .dragging, velocity: -4))
        #expect(ahead.1.priority == .veryLow)    // now behind the scroll direction
        list.show(1...4, ScrollState(phase: .dragging, velocity: 4))
        #expect(ahead.1.priority == .low)        // ahead again
        list.loader.update(visibleItems: Array(2...5), scroll: .idle)
        #expect(ahead.1.priority == .high)       // on screen
        try await waitUntil { Set(list.fixture.loader.pendingURLs.map(ListFixture.row)).isSuperset(of: [5, 8]) }
        list.loader.update(visibleItems: Array(20...23), scroll: .idle)
        #expect(ahead.1.state == .deferred && farther.1.state == .deferred) // too far: cancelled
        try await waitUntil { list.cancelledRows.isSuperset(of: [5, 8]) }
        list.loader.stop()
    }
}
