import Foundation
import Testing
@testable import ShashinCore

/// `DiskCache.maxAge`: entries unused for longer are removed by the sweep that enforces the
/// limits and at open, by the cache's injected clock.
@Suite("Disk cache age limit")
struct DiskCacheMaxAgeTests {
    final class Clock: Sendable {
        let time = Locked(Date(timeIntervalSince1970: 1_900_000_000))
        var now: @Sendable () -> Date { { [time] in time.withLock { $0 } } }
        func advance(_ seconds: TimeInterval) { time.withLock { $0 += seconds } }
    }

    @Test("the sweep removes entries unused for longer than maxAge, and keeps those read since")
    func sweepRemovesUnused() throws {
        let folder = TemporaryFolder()
        let clock = Clock()
        let cache = try DiskCache(configuration: .init(directory: folder.url, maxAge: 100, now: clock.now))
        try cache.store(Data(repeating: 1, count: 10), metadata: nil, forKey: "old")
        try cache.store(Data(repeating: 2, count: 200_000), metadata: nil, forKey: "old-file")
        try cache.store(Data(repeating: 3, count: 10), metadata: nil, forKey: "read")
        clock.advance(60)
        _ = try cache.entry(forKey: "read")
        clock.advance(41)
        cache.trim()
        #expect(try cache.entries().map(\.key) == ["read"])
        #expect(folder.dataFiles().isEmpty, "the removed entry's file goes too")
        clock.advance(60)
        cache.trim()
        #expect(cache.count == 0)
    }

    @Test("opening a cache removes what went unused while it was closed")
    func openRemovesUnused() throws {
        let folder = TemporaryFolder()
        let clock = Clock()
        do {
            let cache = try DiskCache(configuration: .init(directory: folder.url, now: clock.now))
            try cache.store(Data([1]), metadata: nil, forKey: "a")
        }
        clock.advance(1_000)
        let withoutLimit = try DiskCache(configuration: .init(directory: folder.url, now: clock.now))
        withoutLimit.flush()
        #expect(withoutLimit.count == 1, "no age limit: kept")
        let reopened = try DiskCache(configuration: .init(directory: folder.url, maxAge: 999, now: clock.now))
        reopened.flush()
        #expect(reopened.count == 0)
        _ = withoutLimit
    }

    @Test("a store starts the age sweep when the last one is old enough")
    func storeStartsSweep() throws {
        let folder = TemporaryFolder()
        let clock = Clock()
        let cache = try DiskCache(configuration: .init(directory: folder.url, maxAge: 80, now: clock.now))
        cache.flush() // the sweep at open
        try cache.store(Data([1]), metadata: nil, forKey: "a")
        clock.advance(81)
        try cache.store(Data([2]), metadata: nil, forKey: "b")
        cache.flush()
        #expect(try cache.entries().map(\.key) == ["b"])
    }
}
