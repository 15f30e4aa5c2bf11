import Foundation
import Testing
@testable import ShashinCore

/// A list of `count` rows whose images are `row-<n>`, and a pool of cells with their bindings.
@MainActor
final class ListFixture {
    let fixture: PipelineFixture
    let loader: VisibleItemsLoader<Int>
    private var cells: [Int: (RecordingTarget, ImageBinding)] = [:]
    private var pool: [(RecordingTarget, ImageBinding)] = []

    init(count: Int, policy: VisibleItemsLoader<Int>.Policy = .init(),
         configure: (inout ImagePipeline.Configuration) -> Void = { _ in }) {
        fixture = PipelineFixture(configure)
        loader = VisibleItemsLoader(pipeline: fixture.pipeline, items: Array(0..<count), policy: policy) { row in
            ImageRequest(url: PipelineFixture.url("row-\(row)"))
        }
    }

    static func row(of url: URL) -> Int { Int(url.lastPathComponent.dropFirst(4))! }

    /// Scrolls to `visible`: updates the loader, then reuses the cells of rows that left for rows that came.
    func show(_ visible: ClosedRange<Int>, _ scroll: ScrollState) {
        loader.update(visibleItems: Array(visible), scroll: scroll)
        for row in cells.keys where !visible.contains(row) { pool.append(cells.removeValue(forKey: row)!) }
        for row in visible where cells[row] == nil {
            let cell = pool.popLast() ?? {
                let target = RecordingTarget()
                return (target, ImageBinding(target: target, pipeline: fixture.pipeline))
            }()
            cells[row] = cell
            loader.display(row, in: cell.1)
        }
    }

    func binding(_ row: Int) -> ImageBinding? { cells[row]?.1 }
}

@MainActor
@Suite("VisibleItemsLoader: scroll-aware loading")
struct VisibleItemsLoaderTests {
    @Test func aFastFlingStartsNoDownloadsUntilTheListSlowsDown() async throws {
        var policy = VisibleItemsLoader<Int>.Policy()
        policy.prefetchDistance = 0
        let list = ListFixture(count: 300, policy: policy)
        for top in stride(from: 0, through: 180, by: 4) {
            list.show(top...(top + 3), ScrollState(phase: .decelerating, velocity: 80))
        }
        list.fixture.flushGraph()
        #expect(list.fixture.loader.startCount == 0)
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

    @Test func itemsAheadInTheScrollDirectionArePrefetchedAtLowPriority() async throws {
        var policy = VisibleItemsLoader<Int>.Policy()
        policy.prefetchDistance = 3
        let list = ListFixture(count: 100, policy: policy)
        list.show(10...13, ScrollState(phase: .dragging, velocity: -2))
        #expect(list.loader.prefetchingItems == [7, 8, 9])
        list.show(10...13, .idle)
        #expect(list.loader.prefetchingItems == [7, 8, 9]) // the last direction holds at rest
        list.show(10...13, ScrollState(phase: .dragging, velocity: 3))
        #expect(list.loader.prefetchingItems == [14, 15, 16])
        list.show(50...53, ScrollState(phase: .decelerating, velocity: 90))
        #expect(list.loader.prefetchingItems.isEmpty) // not while flinging
        // Rows 10...13 left loading, already farther than the keep distance: nothing loads any more.
        try await waitUntil { list.fixture.loader.pendingURLs.isEmpty }
        try await list.fixture.waitUntilIdle()
    }

    @Test func rowsThatLeftDropToTheLowestPriorityAndAreCancelledFarAway() async throws {
        var policy = VisibleItemsLoader<Int>.Policy()
        policy.prefetchDistance = 0
        policy.keepDistance = 5
        let list = ListFixture(count: 100, policy: policy) { $0.maxConcurrentDownloads = 1 }
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
        _ = try await busy.image
        try await list.fixture.waitUntilIdle()
    }

    @Test func rowsThatLeftAreCancelledBeyondTheKeepDistance() async throws {
        var policy = VisibleItemsLoader<Int>.Policy()
        policy.prefetchDistance = 0
        policy.keepDistance = 5
        let list = ListFixture(count: 100, policy: policy) { $0.maxConcurrentDownloads = 20 }
        list.show(0...3, .idle)
        try await list.fixture.loader.waitForPendingCount(4)
        list.show(4...7, ScrollState(phase: .dragging, velocity: 4)) // 0...3 left, within 5 rows: kept
        try await list.fixture.loader.waitForPendingCount(8)
        #expect(list.loader.leavingItems == [0, 1, 2, 3])
        list.fixture.flushGraph()
        #expect(list.fixture.loader.cancelledURLs.isEmpty)

        list.show(7...10, ScrollState(phase: .dragging, velocity: 4)) // rows 0 and 1 are now 6 and 7 rows away
        #expect(list.loader.leavingItems == [2, 3, 4, 5, 6])
        try await waitUntil { Set(list.fixture.loader.cancelledURLs.map(ListFixture.row)) == [0, 1] }
        list.loader.stop()
        list.show(7...10, .idle)
    }
}
