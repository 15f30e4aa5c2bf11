import Foundation
import Testing
import ShashinCore

/// A `DataCaching` with only the requirements that have no default.
private final class MinimalDataCache: DataCaching {
    let entries = Locked<[String: DataCacheEntry]>([:])

    func entry(forKey key: String) throws -> DataCacheEntry? { entries.withLock { $0[key] } }
    func containsEntry(forKey key: String) -> Bool { entries.withLock { $0[key] != nil } }
    func store(_ data: Data, metadata: Data?, forKey key: String) throws {
        entries.withLock { $0[key] = DataCacheEntry(data: data, metadata: metadata) }
    }
    func updateMetadata(_ metadata: Data?, forKey key: String) throws { entries.withLock { $0[key]?.metadata = metadata } }
    func removeEntry(forKey key: String) throws { entries.withLock { $0[key] = nil } }
    func removeAll() throws { entries.withLock { $0.removeAll() } }
}

@Suite("DataCaching defaults")
struct DataCachingDefaultsTests {
    @Test func defaultCompareAndSetReplacesOnlyTheExpectedMetadata() throws {
        let cache = MinimalDataCache()
        try cache.store(Data("bytes".utf8), metadata: Data("v1".utf8), forKey: "k")
        #expect(try !cache.updateMetadata(Data("v3".utf8), forKey: "k", ifCurrent: Data("v0".utf8)))
        #expect(try cache.entry(forKey: "k")?.metadata == Data("v1".utf8))
        #expect(try cache.updateMetadata(Data("v2".utf8), forKey: "k", ifCurrent: Data("v1".utf8)))
        #expect(try cache.entry(forKey: "k") == DataCacheEntry(data: Data("bytes".utf8), metadata: Data("v2".utf8),
                                                                storedAt: try #require(try cache.entry(forKey: "k")).storedAt))
        #expect(try !cache.updateMetadata(Data("x".utf8), forKey: "absent", ifCurrent: nil))
        #expect(!cache.containsEntry(forKey: "absent"))
    }
}
