import Foundation
import Testing
@testable import ShashinCore

/// Which predicted rows load, and when: only those likely enough to be on screen when the list
/// rests, likeliest first; what a changed or caught prediction stops; how far prefetching reaches.
@MainActor
@Suite("VisibleItemsLoader: loading only what is likely to be shown")
struct VisibleItemsLoaderLikelihoodTests {
    static func fling(_ velocity: Double, landing: Double) -> ScrollState {
        ScrollState(phase: .decelerating, velocity: velocity, predictedRestingOffset: landing)
    }

    static func likelihood(_ index: Int, offset: Double, count: Int, spread: Double) -> Double {
        VisibleItemsLoader<Int>.restingLikelihood(of: index, offset: offset, visibleCount: count, spread: spread)
    }

    @Test func theLikelihoodsPeakInTheMiddleOfTheWindowAndAddUpToTheRowsOnScreen() {
        // Nine rows on screen (one partly), the list predicted to rest at 180.42, 7.4 rows of error.
        let rows = 100..<260
        let spread = rows.map { Self.likelihood($0, offset: 180.42, count: 9, spread: 7.4) }
        // Every resting offset shows 9.5 rows on average (a screen 8.5 rows long): so do the likelihoods.
        #expect(abs(spread.reduce(0, +) - 9.5) < 1e-6)
        let peak = rows.max { Self.likelihood($0, offset: 180.42, count: 9, spread: 7.4) < Self.likelihood($1, offset: 180.42, count: 9, spread: 7.4) }
        #expect(peak == 184) // the middle of rows 180...188
        for (a, b) in [(184, 186), (186, 188), (188, 190), (184, 182), (182, 180), (180, 178)] {
            #expect(Self.likelihood(a, offset: 180.42, count: 9, spread: 7.4) > Self.likelihood(b, offset: 180.42, count: 9, spread: 7.4))
        }
        // The nearer the list is to its landing (a smaller error), the likelier the window's rows.
        for row in 180...188 {
            #expect(Self.likelihood(row, offset: 180.42, count: 9, spread: 2) > Self.likelihood(row, offset: 180.42, count: 9, spread: 7.4))
        }
        // An exact prediction: the window's rows certainly, no other.
        #expect((180...188).allSatisfy { Self.likelihood($0, offset: 180.42, count: 9, spread: 0) == 1 })
        #expect(Self.likelihood(179, offset: 180.42, count: 9, spread: 0) == 0)
        #expect(Self.likelihood(189, offset: 180.42, count: 9, spread: 0) == 0)
        // A landing on a whole row (paging, snapping): the edge rows of the window are likely too.
        #expect(Self.likelihood(200, offset: 200, count: 8, spread: 0.3) > 0.9)
        #expect(Self.likelihood(207, offset: 200, count: 8, spread: 0.3) > 0.9)
    }

    @Test(arguments: CallOrder.allCases)
    func onlyRowsLikelyEnoughToBeOnScreenAtRestLoadLikeliestFirstAndTheRestAsTheListNears(order: CallOrder) async throws {
        var policy = VisibleItemsLoader<Int>.Policy()
        policy.landingThreshold = 0.65
        policy.landingUncertainty = 0.1
        let list = ListFixture(count: 300, policy: policy, order: order) { $0.maxConcurrentDownloads = 20 }
        // Lifted at the top, 100 rows from the landing: an error of 10 rows, no row is 0.65 likely.
        list.loader.update(visibleItems: [], scroll: Self.fling(150, landing: 100.4))
        list.show(0...7, Self.fling(150, landing: 100.4))
        #expect(list.loader.predictedLandingItems == Array(100...107))
        #expect(list.loader.landingItems.isEmpty)
        await list.fixture.flushGraph()
        #expect(list.fixture.loader.startedURLs.isEmpty)

        // 40 rows away (an error of 4 rows): the middle of the window, likeliest first.
        list.show(60...67, Self.fling(60, landing: 100.4))
        #expect(list.loader.wantedLandingItems == [104, 103, 105, 102])
        #expect(list.loader.landingItems == [102, 103, 104, 105])
        for row in 102...105 { #expect(list.loader.landingPriority(of: row) == .high) }
        try await list.fixture.loader.waitForPendingCount(4)
        #expect(Set(list.fixture.loader.startedURLs.map(ListFixture.row)) == Set(102...105))

        // 10 rows away: the whole window; still nothing beyond it, and nothing flown past.
        list.show(90...97, Self.fling(20, landing: 100.4))
        #expect(list.loader.landingItems == Set(100...107))
        #expect(list.loader.prefetchingItems.isEmpty)
        try await list.fixture.loader.waitForPendingCount(8)
        await list.fixture.flushGraph()
        #expect(Set(list.fixture.loader.startedURLs.map(ListFixture.row)) == Set(100...107))
        #expect(list.cancelledRows.isEmpty)
        list.loader.stop()
        list.show(100...107, .idle)
    }

    @Test(arguments: CallOrder.allCases)
    func aCaughtFlickCancelsItsPredictedWindowAtOnceHoweverNear(order: CallOrder) async throws {
        var policy = VisibleItemsLoader<Int>.Policy()
        policy.landingThreshold = 0 // the whole window at the lift
        policy.prefetchDistance = 0
        policy.keepDistance = 50   // far more than the catch is from the window: distance cancels nothing
        let list = ListFixture(count: 300, policy: policy, order: order) { $0.maxConcurrentDownloads = 20 }
        list.loader.update(visibleItems: [], scroll: Self.fling(120, landing: 30))
        list.show(0...3, Self.fling(120, landing: 30))
        #expect(list.loader.landingItems == Set(30...33))
        try await list.fixture.loader.waitForPendingCount(4)

        // The finger catches the list 17 rows short of the landing.
        list.show(10...13, ScrollState(phase: .dragging, velocity: 0))
        #expect(list.loader.predictedLandingItems.isEmpty)
        #expect(list.loader.landingItems.isEmpty)
        try await waitUntil { list.cancelledRows == Set(30...33) }
        // Where the list stopped loads at once, at high priority.
        for row in 10...13 { #expect(list.binding(row)?.priority == .high) }
        try await waitUntil { Set(list.fixture.loader.pendingURLs.map(ListFixture.row)) == Set(10...13) }
        list.loader.stop()
        list.show(10...13, .idle)
    }

    @Test(arguments: CallOrder.allCases)
    func aNextFlickCancelsTheRowsItsLandingNoLongerShows(order: CallOrder) async throws {
        var policy = VisibleItemsLoader<Int>.Policy()
        policy.landingThreshold = 0
        policy.prefetchDistance = 0
        policy.keepDistance = 50
        let list = ListFixture(count: 300, policy: policy, order: order) { $0.maxConcurrentDownloads = 20 }
        list.loader.update(visibleItems: [], scroll: Self.fling(120, landing: 60))
        list.show(0...3, Self.fling(120, landing: 60))
        try await list.fixture.loader.waitForPendingCount(4)
        // A second flick moves the landing two rows on: rows 60 and 61 will not be on screen at rest.
        list.show(10...13, Self.fling(120, landing: 62))
        #expect(list.loader.landingItems == Set(62...65))
        try await waitUntil { list.cancelledRows == [60, 61] }
        // Rows 62 and 63 keep the downloads they had; 64 and 65 start.
        try await list.fixture.loader.waitForPendingCount(4)
        #expect(list.starts(of: 62) == 1 && list.starts(of: 64) == 1)
        list.loader.stop()
        list.show(10...13, .idle)
    }

    @Test(arguments: CallOrder.allCases)
    func slowingTowardItsLandingTheListLoadsOnlyTheRowsNearItNotThoseItGlidesAwayFrom(order: CallOrder) async throws {
        var policy = VisibleItemsLoader<Int>.Policy()
        policy.prefetchDistance = 0
        policy.landingMargin = 2
        let list = ListFixture(count: 100, policy: policy, order: order) { $0.maxConcurrentDownloads = 20 }
        // Slow (8 rows/s), four rows from its landing at 20: rows 16 and 17 will be gone before it rests.
        list.loader.update(visibleItems: Array(15...18), scroll: Self.fling(9, landing: 20)) // the frame before
        list.show(16...19, Self.fling(8, landing: 20))
        #expect(list.binding(16)?.state == .deferred && list.binding(17)?.state == .deferred)
        for row in 18...19 { #expect(list.binding(row)?.state == .loading) } // within two rows of the landing
        #expect(list.loader.landingItems == Set(20...23)) // the landing itself loads
        await list.fixture.flushGraph()
        #expect(Set(list.fixture.loader.startedURLs.map(ListFixture.row)) == Set(18...23))
        // At rest the list loads what is on screen, whatever was predicted.
        list.show(16...19, .idle)
        for row in 16...19 { #expect(list.binding(row)?.state == .loading) }
        list.loader.stop()
    }

    @Test func atRestOnlyRowsAheadWhoseImagesAreOnDiskArePrefetched() async throws {
        let disk = InMemoryDataCache()
        var policy = VisibleItemsLoader<Int>.Policy()
        policy.prefetchDistance = 4
        // Rows 15, 17 and 30 were downloaded before (fresh for ten minutes) and sit on disk.
        let earlier = PipelineFixture { configuration in
            configuration.dataLoader = ScriptedHTTPLoader { _ in
                .init(headers: ["Cache-Control": "max-age=600"], body: TestImages.encode(width: 2, height: 2, fill: 4))
            }
            configuration.diskCache = disk
        }.pipeline
        let list = ListFixture(count: 100, policy: policy) { $0.diskCache = disk; $0.maxConcurrentDownloads = 20 }
        for row in [15, 17, 30] {
            let request = ImageRequest(url: PipelineFixture.url("row-\(row)"))
            _ = try await earlier.image(for: request)
            try await waitUntil { list.fixture.pipeline.hasOriginalOnDisk(request) }
        }
        list.show(10...13, ScrollState(phase: .dragging, velocity: 4))
        #expect(list.loader.prefetchingItems == [14, 15]) // moving: as far as it would coast
        try await waitUntil { list.fixture.loader.pendingURLs.contains(PipelineFixture.url("row-14")) }
        list.show(10...13, .idle)
        #expect(list.loader.prefetchingItems == [15, 17]) // at rest: the four rows ahead, only those on disk
        try await waitUntil { list.cancelledRows == [14] } // the download stopped at rest
        try await waitUntil { list.fixture.pipeline.cachedImage(for: ImageRequest(url: PipelineFixture.url("row-17"))) != nil }
        #expect(list.starts(of: 17) == 0) // read from disk, no download
        list.loader.stop()
    }

    @Test func prefetchingReachesAsFarAsTheListWouldStillTravelAndNotAtRest() async throws {
        var policy = VisibleItemsLoader<Int>.Policy()
        policy.prefetchDistance = 6
        let list = ListFixture(count: 100, policy: policy) { $0.maxConcurrentDownloads = 20 }
        list.show(10...13, .idle)
        #expect(list.loader.prefetchingItems.isEmpty) // at rest, no disk cache: where the user goes next is unknown
        list.show(10...13, ScrollState(phase: .dragging, velocity: 4))
        #expect(list.loader.prefetchingItems == [14, 15]) // let go now, it would coast 4·τ ≈ 2 rows
        list.show(10...13, ScrollState(phase: .dragging, velocity: -10))
        #expect(list.loader.prefetchingItems == [5, 6, 7, 8, 9]) // about 5 rows back
        list.show(10...13, ScrollState(phase: .decelerating, velocity: 11))
        #expect(list.loader.prefetchingItems == Set(14...19)) // 11·τ ≈ 5.5 rows, rounded up to 6
        list.show(10...13, ScrollState(phase: .dragging, velocity: 30))
        #expect(list.loader.prefetchingItems.isEmpty) // too fast: nothing loads
        list.show(10...13, Self.fling(5, landing: 14))
        #expect(list.loader.prefetchingItems.isEmpty) // nothing beyond where the list will stop
        list.show(14...17, ScrollState(phase: .dragging, velocity: 4))
        #expect(list.loader.prefetchingItems == [18, 19])
        list.show(14...17, .idle)
        #expect(list.loader.prefetchingItems.isEmpty) // stopped at rest
        try await waitUntil { list.loader.prefetcher.count == 0 }
        list.loader.stop()
    }

    @Test func theListsEndsHoldTheLikelihoodOfRestingBeyondThem() {
        // Predicted 20 rows above the top with an error of 2 rows: the list cannot rest there; it
        // rests at the top, where row 0 is on screen.
        let top = VisibleItemsLoader<Int>.restingLikelihood(of: 0, offset: -20, visibleCount: 8, spread: 2, itemCount: 100)
        #expect(top > 0.99)
        #expect(Self.likelihood(0, offset: -20, count: 8, spread: 2) < 0.01) // without the ends
        // Predicted at the top itself: the outcomes above it count for row 0, those past row 1 not.
        let atTop = VisibleItemsLoader<Int>.restingLikelihood(of: 0, offset: 0, visibleCount: 8, spread: 2, itemCount: 100)
        #expect(abs(atTop - 0.5 * erfc(-0.5 / 2.0.squareRoot())) < 1e-9)
        // Predicted 20 rows past the end of 100 rows: the last screen (92.5 ... 100), certainly.
        for row in 93...99 {
            #expect(VisibleItemsLoader<Int>.restingLikelihood(of: row, offset: 117, visibleCount: 8, spread: 1, itemCount: 100) > 0.99)
        }
        #expect(VisibleItemsLoader<Int>.restingLikelihood(of: 91, offset: 117, visibleCount: 8, spread: 0, itemCount: 100) == 0)
    }

    @Test(arguments: CallOrder.allCases)
    func aFlingPredictedPastTheEndLoadsTheLastScreen(order: CallOrder) async throws {
        var policy = VisibleItemsLoader<Int>.Policy()
        policy.prefetchDistance = 0
        let list = ListFixture(count: 100, policy: policy, order: order) { $0.maxConcurrentDownloads = 20 }
        list.loader.update(visibleItems: [], scroll: Self.fling(40, landing: 130))
        list.show(85...92, Self.fling(40, landing: 130))
        #expect(list.loader.predictedLandingItems == Array(92...99))
        #expect(list.loader.landingItems == Set(93...99)) // 92 is on screen already: its cell loads it
        list.loader.stop()
        list.show(92...99, .idle)
    }

    @Test(arguments: CallOrder.allCases)
    func aLandingRowOnceStartedKeepsLoadingAsPartlyVisibleRowsComeAndGoFromTheCount(order: CallOrder) async throws {
        var policy = VisibleItemsLoader<Int>.Policy()
        policy.prefetchDistance = 0
        let list = ListFixture(count: 300, policy: policy, order: order) { $0.maxConcurrentDownloads = 20 }
        // A screen 5.5 rows tall shows 6 rows, then 7, then 6 again as the list glides toward 100.3.
        list.loader.update(visibleItems: [], scroll: Self.fling(120, landing: 100.3))
        for (frame, first) in stride(from: 40, through: 99, by: 1).enumerated() {
            let shown = first...(first + (frame % 2 == 0 ? 5 : 6))
            list.show(shown, Self.fling(max(2.5, (100.3 - Double(first)) * 2), landing: 100.3))
            await list.fixture.flushGraph()
        }
        let landingRows = Set(list.fixture.loader.startedURLs.map(ListFixture.row)).filter { $0 >= 100 }
        #expect(!landingRows.isEmpty)
        for row in landingRows { #expect(list.starts(of: row) == 1, "row \(row) started \(list.starts(of: row)) times") }
        #expect(list.cancelledRows.isDisjoint(with: landingRows))
        list.loader.stop()
        list.show(100...105, .idle)
    }
}
