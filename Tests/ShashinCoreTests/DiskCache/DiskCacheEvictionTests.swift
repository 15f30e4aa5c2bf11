import Foundation
import Testing
@testable import ShashinCore

@Suite("DiskCache eviction")
struct DiskCacheEvictionTests {
    let folder = TemporaryFolder()

    @Test func goingOverTheSizeLimitEvictsLeastRecentlyUsedDownToSeventyPercent() throws {
        let cache = try DiskCache(directory: folder.url, limits: testLimits(sizeLimit: 10_000, inlineThreshold: 1000),
                                  fileSystem: PosixFileSystem())
        // Ten entries of 1000 bytes (files) fill the cache exactly.
        for index in 0..<10 { try cache.store(payload("\(index)", size: 1000), metadata: nil, forKey: "\(index)") }
        // Use them in a new order: 9, 7, 5, 3, 1 are now the oldest, then 0, 2, 4, 6, 8.
        for index in [0, 2, 4, 6, 8] { #expect(try cache.entry(forKey: "\(index)") != nil) }
        #expect(cache.count == 10)

        try cache.store(payload("new", size: 1000), metadata: nil, forKey: "new") // 11,000 > 10,000
        cache.flush()

        #expect(cache.totalSize <= 7000)
        let kept = Set(try cache.entries().map(\.key))
        #expect(kept == ["new", "0", "2", "4", "6", "8", "9"]) // 7,000 bytes: the most recently used seven
        #expect(folder.dataFiles().count == 7)
    }

    @Test func goingOverTheCountLimitEvictsTheOldest() throws {
        let cache = try DiskCache(directory: folder.url, limits: testLimits(countLimit: 10), fileSystem: PosixFileSystem())
        for index in 0..<11 { try cache.store(Data([UInt8(index)]), metadata: nil, forKey: "\(index)") }
        cache.flush()
        #expect(cache.count == 7)
        #expect(Set(try cache.entries().map(\.key)) == Set((4..<11).map { "\($0)" }))
    }

    @Test func aTrimRatioOfOneWithNoCountLimitTrimsToTheLimit() throws {
        // Int.max entries × 1.0 is 2^63 as a Double, one past Int.max: converting it back trapped.
        let cache = try DiskCache(configuration: .init(directory: folder.url, sizeLimit: 1000, trimRatio: 1, inlineThreshold: 100, syncsFiles: false))
        for index in 0..<3 { try cache.store(payload("\(index)", size: 400), metadata: nil, forKey: "\(index)") }
        cache.trim()
        cache.flush()
        #expect(cache.totalSize == 800 && cache.count == 2)
        #expect(Set(try cache.entries().map(\.key)) == ["1", "2"])
    }

    @Test func containsEntryDoesNotCountAsAUse() throws {
        let cache = try DiskCache(directory: folder.url, limits: testLimits(countLimit: 3), fileSystem: PosixFileSystem())
        for key in ["a", "b", "c"] { try cache.store(Data([1]), metadata: nil, forKey: key) }
        #expect(cache.containsEntry(forKey: "a"))
        try cache.store(Data([1]), metadata: nil, forKey: "d")
        cache.flush()
        #expect(Set(try cache.entries().map(\.key)) == ["c", "d"]) // 70% of 3 → 2 kept
    }

    @Test func trimAppliesALoweredLimitNow() throws {
        let cache = try DiskCache(directory: folder.url, limits: testLimits(), fileSystem: PosixFileSystem())
        for index in 0..<20 { try cache.store(payload("\(index)", size: 500), metadata: nil, forKey: "\(index)") }
        cache.configuration.sizeLimit = 5000
        cache.trim()
        #expect(cache.totalSize == 3500)
        #expect(Set(try cache.entries().map(\.key)) == Set((13..<20).map { "\($0)" }))
    }

    @Test func accessTimesSurviveARestart() throws {
        do {
            let cache = try DiskCache(directory: folder.url, limits: testLimits(), fileSystem: PosixFileSystem())
            for key in ["a", "b", "c"] { try cache.store(Data([1]), metadata: nil, forKey: key) }
            _ = try cache.entry(forKey: "a") // a is now the most recently used, only in memory
            cache.flush()
        }
        let cache = try DiskCache(directory: folder.url, limits: testLimits(countLimit: 3), fileSystem: PosixFileSystem())
        try cache.store(Data([1]), metadata: nil, forKey: "d")
        cache.flush()
        #expect(Set(try cache.entries().map(\.key)) == ["a", "d"])
    }

    @Test func listingIsMostRecentlyUsedFirst() throws {
        let cache = try DiskCache(directory: folder.url, limits: testLimits(), fileSystem: PosixFileSystem())
        for key in ["a", "b", "c"] { try cache.store(Data([1]), metadata: nil, forKey: key) }
        _ = try cache.entry(forKey: "a")
        #expect(try cache.entries().map(\.key) == ["a", "c", "b"])
    }
}
