import Foundation
import Testing
@testable import ShashinCore

@Suite("Memory cache")
struct MemoryCacheTests {
    func key(_ name: String) -> ImageCacheKey { ImageCacheKey(url: "https://example.com/\(name)") }
    let image = TestImages.makeImage(width: 10, height: 10) // 400 bytes

    @Test func evictsTheLeastRecentlyUsedImageFirst() {
        let cache = MemoryCache(costLimit: 1_000_000, countLimit: 3)
        cache.store(image, forKey: key("a"))
        cache.store(image, forKey: key("b"))
        cache.store(image, forKey: key("c"))
        _ = cache.image(forKey: key("a"))          // a is now the most recent
        cache.store(image, forKey: key("d"))        // evicts b
        #expect(cache.image(forKey: key("b")) == nil)
        #expect(cache.image(forKey: key("a")) != nil)
        #expect(cache.keysInUseOrder.map(\.url).map { $0.split(separator: "/").last! } == ["a", "d", "c"])
    }

    @Test func keepsTheTotalCostWithinTheByteLimit() {
        let cache = MemoryCache(costLimit: 4_000, countLimit: 100)  // 10 images of 400 bytes
        for i in 0..<25 { cache.store(image, forKey: key("\(i)")) }
        #expect(cache.totalCost <= 4_000)
        #expect(cache.totalCount == 10)
        #expect(cache.image(forKey: key("24")) != nil)
        #expect(cache.image(forKey: key("14")) == nil)
    }

    @Test func refusesAnEntryLargerThanTheEntryShareOfTheLimit() {
        let cache = MemoryCache(costLimit: 10_000)       // entries up to 1,000 bytes
        let big = TestImages.makeImage(width: 20, height: 20) // 1,600 bytes
        cache.store(image, forKey: key("small"))
        cache.store(big, forKey: key("big"))
        #expect(cache.image(forKey: key("big")) == nil)
        #expect(cache.image(forKey: key("small")) != nil)
        #expect(cache.totalCost == 400)
    }

    @Test func expiresEntriesAfterTheirTimeToLive() {
        let now = Locked(Date(timeIntervalSince1970: 1_000))
        let cache = MemoryCache(timeToLive: 60, clock: { now.current })
        cache.store(image, forKey: key("a"))
        now.withLock { $0 += 59 }
        #expect(cache.image(forKey: key("a")) != nil)
        now.withLock { $0 += 1 }
        #expect(cache.image(forKey: key("a")) == nil)
        #expect(cache.totalCount == 0)
    }

    @Test func replacingAnEntryUpdatesItsCost() {
        let cache = MemoryCache(costLimit: 100_000)
        cache.store(image, forKey: key("a"))
        cache.store(TestImages.makeImage(width: 5, height: 5), forKey: key("a"))
        #expect(cache.totalCost == 100)
        #expect(cache.totalCount == 1)
    }

    @Test func trimAndRemoveAllEmptyTheCache() {
        let cache = MemoryCache(costLimit: 100_000)
        for i in 0..<10 { cache.store(image, forKey: key("\(i)")) }
        cache.trim(.cost(1_200))
        #expect(cache.totalCount == 3)
        #expect(cache.image(forKey: key("9")) != nil)
        cache.trim(.count(1))
        #expect(cache.totalCount == 1)
        cache.removeAll()
        #expect(cache.totalCount == 0 && cache.totalCost == 0)
    }

    @Test func isSafeUnderConcurrentUse() async {
        let cache = MemoryCache(costLimit: 40_000)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    // Its own image, and no capture of `self`: on Apple platforms an image need
                    // not be Sendable, so one is not shared between tasks.
                    let image = TestImages.makeImage(width: 10, height: 10)
                    func key(_ name: String) -> ImageCacheKey { ImageCacheKey(url: "https://example.com/\(name)") }
                    for i in 0..<500 {
                        cache.store(image, forKey: key("\((worker * 31 + i) % 200)"))
                        _ = cache.image(forKey: key("\(i % 200)"))
                    }
                }
            }
        }
        #expect(cache.totalCost <= 40_000)
        #expect(cache.totalCost == cache.totalCount * 400)
    }
}
