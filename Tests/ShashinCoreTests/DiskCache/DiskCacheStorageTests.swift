import Foundation
import Testing
@testable import ShashinCore

@Suite("DiskCache storage")
struct DiskCacheStorageTests {
    let folder = TemporaryFolder()

    /// A cache on the folder, once the reconciling that opening starts in the background is over:
    /// run later, it would take a file a test removes for a lost one and drop its row.
    func makeCache(inlineThreshold: Int = 1024) throws -> DiskCache {
        let cache = try DiskCache(directory: folder.url, limits: testLimits(inlineThreshold: inlineThreshold), fileSystem: PosixFileSystem())
        cache.store.queue.sync {}
        return cache
    }

    @Test func smallEntriesRoundTripInline() throws {
        let cache = try makeCache()
        let data = payload("small", size: 1000)
        try cache.store(data, metadata: Data("headers".utf8), forKey: "small")
        let entry = try #require(try cache.entry(forKey: "small"))
        #expect(entry.data == data)
        #expect(entry.metadata == Data("headers".utf8))
        #expect(try cache.entries().map(\.storage) == [.inline])
        #expect(folder.dataFiles().isEmpty)
    }

    @Test func largeEntriesRoundTripThroughAFile() throws {
        let cache = try makeCache()
        let data = payload("large", size: 50_000)
        try cache.store(data, metadata: nil, forKey: "large")
        let entry = try #require(try cache.entry(forKey: "large"))
        #expect(entry.data == data)
        #expect(entry.metadata == nil)
        let info = try #require(try cache.entries().first)
        guard case .file(let name) = info.storage else { Issue.record("expected a file, got \(info.storage)"); return }
        #expect(folder.dataFiles() == [name])
        #expect(info.size == 50_000 && cache.totalSize == 50_000 && cache.count == 1)
    }

    @Test func emptyDataAndEmptyMetadataStayDistinctFromNil() throws {
        let cache = try makeCache()
        try cache.store(Data(), metadata: Data(), forKey: "empty")
        let entry = try #require(try cache.entry(forKey: "empty"))
        #expect(entry.data.isEmpty)
        #expect(entry.metadata == Data())
    }

    @Test func storingAgainReplacesTheEntryAndItsFile() throws {
        let cache = try makeCache()
        try cache.store(payload("k", size: 5000), metadata: Data([1]), forKey: "k")
        try cache.store(payload("k", size: 6000, version: 1), metadata: Data([2]), forKey: "k")
        #expect(try cache.entry(forKey: "k")?.data == payload("k", size: 6000, version: 1))
        #expect(folder.dataFiles().count == 1)
        // File to inline: the file goes.
        try cache.store(payload("k", size: 10, version: 2), metadata: nil, forKey: "k")
        #expect(try cache.entry(forKey: "k") == DataCacheEntry(data: payload("k", size: 10, version: 2), metadata: nil,
                                                                storedAt: try #require(try cache.entry(forKey: "k")).storedAt))
        #expect(folder.dataFiles().isEmpty)
        #expect(cache.count == 1 && cache.totalSize == 10)
    }

    @Test func removingAnEntryRemovesItsRowAndFile() throws {
        let cache = try makeCache()
        try cache.store(payload("a", size: 5000), metadata: nil, forKey: "a")
        try cache.store(payload("b", size: 10), metadata: nil, forKey: "b")
        try cache.removeEntry(forKey: "a")
        try cache.removeEntry(forKey: "never stored")
        #expect(try cache.entry(forKey: "a") == nil)
        #expect(!cache.containsEntry(forKey: "a") && cache.containsEntry(forKey: "b"))
        #expect(folder.dataFiles().isEmpty)
        #expect(cache.count == 1 && cache.totalSize == 10)
    }

    @Test func removeAllEmptiesTheIndexAndTheDataFolder() throws {
        let cache = try makeCache()
        for index in 0..<20 { try cache.store(payload("\(index)", size: index * 300), metadata: nil, forKey: "\(index)") }
        #expect(cache.count == 20 && !folder.dataFiles().isEmpty)
        try cache.removeAll()
        #expect(cache.count == 0 && cache.totalSize == 0)
        #expect(folder.dataFiles().isEmpty)
        #expect(try cache.entry(forKey: "5") == nil)
        try cache.store(Data([1, 2, 3]), metadata: nil, forKey: "after")
        #expect(try cache.entry(forKey: "after")?.data == Data([1, 2, 3]))
    }

    @Test func updatingMetadataKeepsTheBytes() throws {
        let cache = try makeCache()
        try cache.store(payload("m", size: 4000), metadata: Data("v1".utf8), forKey: "m")
        let before = try #require(try cache.entry(forKey: "m"))
        try cache.updateMetadata(Data("v2".utf8), forKey: "m")
        let after = try #require(try cache.entry(forKey: "m"))
        #expect(after.metadata == Data("v2".utf8))
        #expect(after.data == before.data)
        #expect(after.storedAt >= before.storedAt)
        try cache.updateMetadata(Data("x".utf8), forKey: "absent")
        #expect(!cache.containsEntry(forKey: "absent"))
    }

    @Test func metadataIsReplacedOnlyWhileItIsTheExpectedOne() throws {
        let cache = try makeCache()
        try cache.store(payload("c", size: 100), metadata: Data("v1".utf8), forKey: "c")
        #expect(try !cache.updateMetadata(Data("v3".utf8), forKey: "c", ifCurrent: Data("v0".utf8)))
        #expect(try cache.entry(forKey: "c")?.metadata == Data("v1".utf8))
        #expect(try cache.updateMetadata(Data("v2".utf8), forKey: "c", ifCurrent: Data("v1".utf8)))
        #expect(try cache.entry(forKey: "c")?.metadata == Data("v2".utf8))
        #expect(try !cache.updateMetadata(Data("x".utf8), forKey: "absent", ifCurrent: nil))
        #expect(!cache.containsEntry(forKey: "absent"))
        // nil and empty are different metadata.
        try cache.store(payload("n", size: 10), metadata: nil, forKey: "n")
        #expect(try !cache.updateMetadata(Data([1]), forKey: "n", ifCurrent: Data()))
        #expect(try cache.updateMetadata(Data([1]), forKey: "n", ifCurrent: nil))
        #expect(try cache.entry(forKey: "n")?.metadata == Data([1]))
        try cache.store(payload("e", size: 10), metadata: Data(), forKey: "e")
        #expect(try !cache.updateMetadata(Data([2]), forKey: "e", ifCurrent: nil))
        #expect(try cache.updateMetadata(Data([2]), forKey: "e", ifCurrent: Data()))
        #expect(try cache.entry(forKey: "e")?.metadata == Data([2]))
    }

    /// The metadata column of the only row, read straight from the index (not through `entry`).
    private func storedMetadata(_ cache: DiskCache) throws -> Data? {
        try cache.store.locked { () throws(DiskCacheError) -> Data? in
            let statement = try cache.store.index.database.prepare("SELECT metadata FROM entries")
            return try statement.step() ? statement.data(0) : nil
        }
    }

    @Test func replacingMetadataOfAFileEntryDoesNotReadTheFile() throws {
        let cache = try makeCache()
        try cache.store(payload("f", size: 40_000), metadata: Data("v1".utf8), forKey: "f")
        // A read of the bytes would find the file gone, call the entry a miss and drop its row.
        for name in folder.dataFiles() { try FileManager.default.removeItem(at: folder.url.appendingPathComponent("data/" + name)) }
        #expect(try cache.updateMetadata(Data("v2".utf8), forKey: "f", ifCurrent: Data("v1".utf8)))
        #expect(cache.containsEntry(forKey: "f"))
        #expect(try storedMetadata(cache) == Data("v2".utf8))
    }

    @Test func replacingMetadataOfAnInlineEntryDoesNotReadTheBytes() throws {
        let cache = try makeCache()
        try cache.store(payload("i", size: 500), metadata: Data("v1".utf8), forKey: "i")
        // Inline bytes of another length than the row's: a read of them is a miss.
        try cache.store.locked { () throws(DiskCacheError) in try cache.store.index.database.execute("UPDATE entries SET data = x'00'") }
        #expect(try cache.updateMetadata(Data("v2".utf8), forKey: "i", ifCurrent: Data("v1".utf8)))
        #expect(try storedMetadata(cache) == Data("v2".utf8))
        #expect(try cache.entry(forKey: "i") == nil) // the damage was there all along
    }

    @Test func reopeningAfterARestartKeepsEntries() throws {
        var firstStore: DiskStore?
        do {
            let cache = try makeCache()
            firstStore = cache.store
            try cache.store(payload("inline", size: 100), metadata: Data([7]), forKey: "inline")
            try cache.store(payload("file", size: 40_000), metadata: Data([8]), forKey: "file")
            _ = try cache.entry(forKey: "inline")
            cache.flush()
        }
        #expect(firstStore?.locked { firstStore?.isClosed } == true, "the first store must be closed for this to be a restart")
        let cache = try makeCache()
        #expect(cache.store !== firstStore)
        #expect(try cache.entry(forKey: "inline")?.data == payload("inline", size: 100))
        #expect(try cache.entry(forKey: "file")?.metadata == Data([8]))
        #expect(try cache.entry(forKey: "file")?.data == payload("file", size: 40_000))
        #expect(cache.count == 2 && cache.totalSize == 40_100)
    }

    @Test(arguments: ["../../../etc/passwd", "a/b/c", "/absolute", "..", ".", "写真 🎞️ café", "nul\0inside", "%2F..%2F",
                      String(repeating: "long/", count: 2000), ""])
    func keysNeverBecomePaths(key: String) throws {
        let cache = try makeCache()
        let data = payload(key, size: 3000)
        try cache.store(data, metadata: nil, forKey: key)
        #expect(try cache.entry(forKey: key)?.data == data)
        #expect(try cache.entries().map(\.key) == [key])
        let names = folder.dataFiles()
        #expect(names.count == 1)
        #expect(names.allSatisfy { $0.utf8.count == 49 && $0.allSatisfy { $0.isHexDigit || $0 == "-" } })
        // Nothing but the cache's own files in its folder.
        let top = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix("index.sqlite") }
        #expect(top.sorted() == ["data", "lock", "lock.gate"])
    }

    @Test func keysThatDifferOnlyAfterANulAreDifferentEntries() throws {
        let cache = try makeCache()
        try cache.store(Data([1]), metadata: nil, forKey: "a\0b")
        try cache.store(Data([2]), metadata: nil, forKey: "a\0c")
        #expect(try cache.entry(forKey: "a\0b")?.data == Data([1]))
        #expect(try cache.entry(forKey: "a\0c")?.data == Data([2]))
        #expect(try cache.entry(forKey: "a") == nil)
    }

    @Test func aRowWhoseFullKeyDiffersIsAMiss() throws {
        // Two keys with one hash cannot be found; a row planted under another key's id stands in.
        let cache = try makeCache()
        try cache.store.locked {
            try cache.store.index.upsert(id: DiskStore.rowID(for: "wanted"), key: "someone else", size: 1, storedAt: 0,
                                         accessedAt: 0, group: nil, file: nil, metadata: nil, data: Data([9]))
        }
        #expect(try cache.entry(forKey: "wanted") == nil)
        #expect(!cache.containsEntry(forKey: "wanted"))
        // Storing the wanted key replaces the colliding row rather than serving it.
        try cache.store(Data([1]), metadata: nil, forKey: "wanted")
        #expect(try cache.entry(forKey: "wanted")?.data == Data([1]))
        #expect(cache.count == 1)
    }

    @Test func cacheNamesMustBeOnePathComponent() {
        for name in ["", ".", "..", "a/b", "../x", "nul\0"] {
            #expect(throws: DiskCacheError.self) { try DiskCache(name: name) }
        }
    }

    @Test func aNamedCacheLivesInXDGCacheHome() throws {
        guard let xdg = ProcessInfo.processInfo.environment["XDG_CACHE_HOME"] else {
            let expected = URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".cache").path
            #expect(DiskCache.userCachesDirectory().path == expected)
            return
        }
        #expect(DiskCache.userCachesDirectory().path == URL(fileURLWithPath: xdg).path)
    }

    @Test func sha256MatchesTheStandardTestVectors() {
        #expect(Hex.lowercase(SHA256.digest("")) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Hex.lowercase(SHA256.digest("abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Hex.lowercase(SHA256.digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"))
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        // Lengths around the padding's block boundary (55, 56, 63, 64 bytes), against known digests.
        #expect(Hex.lowercase(SHA256.digest(String(repeating: "a", count: 55))) == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318")
        #expect(Hex.lowercase(SHA256.digest(String(repeating: "a", count: 56))) == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a")
        #expect(Hex.lowercase(SHA256.digest(String(repeating: "a", count: 64))) == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb")
    }
}
