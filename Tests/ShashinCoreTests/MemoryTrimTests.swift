import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import ShashinCore

@Suite("Memory trims")
struct MemoryTrimTests {
    func key(_ name: String) -> ImageCacheKey { ImageCacheKey(url: "https://example.com/\(name)") }
    func name(_ key: ImageCacheKey) -> String { String(key.url.split(separator: "/").last!) }

    /// A cache holding images "0"..."9" of 400 bytes each, "0" the least recently used.
    func filledCache() -> MemoryCache {
        let cache = MemoryCache(costLimit: 100_000)
        for i in 0..<10 { cache.store(TestImages.makeImage(width: 10, height: 10), forKey: key("\(i)")) }
        return cache
    }

    @Test func trimToCostEvictsTheLeastRecentlyUsedFirst() {
        let cache = filledCache()
        _ = cache.image(forKey: key("0"))      // 0 becomes the most recent; 1 is now the oldest
        _ = cache.image(forKey: key("3"))
        cache.trim(.cost(1_600))              // room for 4 of 400 bytes
        #expect(cache.keysInUseOrder.map(name) == ["3", "0", "9", "8"])
        #expect(cache.totalCost == 1_600)
    }

    @Test func trimToFractionKeepsThatShareOfTheBytesHeld() {
        let cache = filledCache()
        cache.trim(.fraction(0.5))
        #expect(cache.totalCost == 2_000)
        #expect(cache.keysInUseOrder.map(name) == ["9", "8", "7", "6", "5"])
        cache.trim(.fraction(2))               // clamped to 1: keeps everything
        #expect(cache.totalCount == 5)
        cache.trim(.fraction(-1))              // clamped to 0: keeps nothing
        #expect(cache.totalCount == 0)
    }

    @Test func aTrimReturnsWhatItFreed() {
        let cache = filledCache()
        let trim = cache.trim(.count(3), reason: .requested)
        #expect(trim == MemoryTrim(level: .count(3), reason: .requested,
                                   costBefore: 4_000, costAfter: 1_200, countBefore: 10, countAfter: 3))
        #expect(trim.freedCost == 2_800)
        let all = cache.trim(.all, reason: .memoryWarning)
        #expect(all.costAfter == 0 && all.countAfter == 0 && cache.totalCost == 0)
    }

    @Test func everyTrimIsReportedToEveryStreamWithItsReason() async throws {
        let cache = filledCache()
        let first = cache.trims, second = cache.trims
        cache.trim(.cost(2_000))
        cache.trim(.all, reason: .background)
        var a = first.makeAsyncIterator(), b = second.makeAsyncIterator()
        let fromFirst = [await a.next(), await a.next()], fromSecond = [await b.next(), await b.next()]
        #expect(fromFirst == fromSecond)
        #expect(fromFirst.map { $0?.reason } == [.requested, .background])
        #expect(fromFirst.map { $0?.level } == [.cost(2_000), .all])
        #expect(fromFirst.map { $0?.costAfter } == [2_000, 0])
    }

    @Test func storingPastTheLimitIsNotReportedAsATrim() async {
        let cache = MemoryCache(costLimit: 4_000, countLimit: 100)
        let trims = cache.trims
        for i in 0..<25 { cache.store(TestImages.makeImage(width: 10, height: 10), forKey: key("\(i)")) }
        cache.trim(.all, reason: .requested)
        var iterator = trims.makeAsyncIterator()
        #expect(await iterator.next()?.level == .all) // the first event is the explicit trim
    }

    @Test func theStreamFinishesWhenTheCacheIsReleased() async {
        var cache: MemoryCache? = MemoryCache(costLimit: 1_000)
        let trims = cache!.trims
        cache = nil
        var iterator = trims.makeAsyncIterator()
        #expect(await iterator.next() == nil)
    }

    @Test func thePipelineTrimsItsMemoryCache() {
        let fixture = PipelineFixture()
        for i in 0..<10 { fixture.cache.store(TestImages.makeImage(width: 10, height: 10), forKey: key("\(i)")) }
        let half = fixture.pipeline.trimMemory(.fraction(0.5))
        #expect(half?.costAfter == 2_000 && half?.reason == .requested)
        #expect(fixture.cache.keysInUseOrder.map(name) == ["9", "8", "7", "6", "5"])
        let all = fixture.pipeline.trimMemory(reason: .pressure)
        #expect(all?.level == .all && all?.reason == .pressure)
        #expect(fixture.cache.totalCount == 0)
    }

    @Test func aTrimFreesTheMemoryTheLoaderKeepsForReuseAtAnyLevel() {
        let loader = ReuseHoldingLoader()
        let fixture = PipelineFixture { $0.dataLoader = loader }
        fixture.pipeline.trimMemory(.fraction(0.9))
        #expect(loader.releases.current == 1)
        fixture.pipeline.trimMemory(reason: .pressure)
        #expect(loader.releases.current == 2)
        let plain = PipelineFixture()
        #expect(plain.pipeline.trimMemory()?.level == .all) // a loader that keeps nothing: the cache alone
    }

    @Test func aPipelineEmptiesACacheThatCannotTrimPartially() {
        let cache = PlainCache()
        let fixture = PipelineFixture { $0.memoryCache = cache }
        #expect(fixture.pipeline.trimMemory(.fraction(0.9)) == nil)
        #expect(cache.removeAllCount.current == 1)
        let none = PipelineFixture { $0.memoryCache = nil }
        #expect(none.pipeline.trimMemory() == nil)
    }

    @Test func theDefaultCostLimitIsAFifthOfTheBudgetAtMost512MB() {
        #expect(MemoryCache.defaultCostLimit(budget: 512 << 20) == 107_374_182)   // a 512 MB container
        #expect(MemoryCache.defaultCostLimit(budget: 24 << 30) == 512 << 20)      // a 24 GB host
        #expect(MemoryCache.defaultCostLimit == MemoryCache.defaultCostLimit(budget: ProcessMemoryBudget.current.bytes))
    }
}

/// An `ImageCaching` that is not `MemoryTrimming`.
final class PlainCache: ImageCaching {
    let removeAllCount = Locked(0)
    func image(forKey key: ImageCacheKey) -> PlatformImage? { nil }
    func store(_ image: PlatformImage, forKey key: ImageCacheKey) {}
    func removeImage(forKey key: ImageCacheKey) {}
    func removeAll() { removeAllCount.withLock { $0 += 1 } }
}

/// A loader that keeps memory for reuse and counts the calls to give it back; it loads nothing.
private final class ReuseHoldingLoader: DataLoading, ReusableMemoryHolding {
    let releases = Locked(0)

    func releaseReusableMemory() { releases.withLock { $0 += 1 } }

    func loadData(for request: URLRequest, maxBytes: Int,
                  progress: @escaping @Sendable (Int64, Int64) -> Void) async throws -> (Data, URLResponse) {
        throw URLError(.resourceUnavailable)
    }
}
