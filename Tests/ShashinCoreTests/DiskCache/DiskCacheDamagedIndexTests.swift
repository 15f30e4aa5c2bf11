import Foundation
import Testing
@testable import ShashinCore

/// Damaged index files the disk-index fuzzer found (`Resources/fuzz/disk-index/`): the cache opens
/// each, and a write or read the damaged index refuses moves it aside, starts an empty one and
/// goes through, instead of failing for good.
@Suite("DiskCache on a damaged index")
struct DiskCacheDamagedIndexTests {
    let folder = TemporaryFolder()

    /// The bundled `Resources/fuzz/disk-index` folder (Foundation on Linux takes the bundle's
    /// `Resources` folder as its `resourceURL`; on Apple platforms the copy sits inside it).
    static let root: URL = {
        let bundle = Bundle.module
        let candidates = [bundle.resourceURL?.appendingPathComponent("Resources"), bundle.resourceURL,
                          bundle.bundleURL.appendingPathComponent("Resources")].compactMap { $0 }
            .map { $0.appendingPathComponent("fuzz/disk-index") }
        return candidates.first { FileManager.default.fileExists(atPath: $0.path) } ?? candidates[0]
    }()

    static let findings = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [])
        .filter { $0.hasSuffix(".sqlite") }.sorted()

    static func finding(_ name: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent(name))
    }

    /// The cache folder with `index` as its index file.
    func cache(on index: Data) throws -> DiskCache {
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        try index.write(to: folder.url.appendingPathComponent("index.sqlite"))
        return try DiskCache(directory: folder.url, limits: testLimits(inlineThreshold: 64), fileSystem: PosixFileSystem())
    }

    @Test func theFindingsAreBundled() {
        #expect(Set(Self.findings).isSuperset(of: ["totals-row-null.sqlite", "rowids-out-of-order.sqlite", "schema-too-big.sqlite",
                                                       "page-limit-full.sqlite", "write-version-7.sqlite"]))
    }

    @Test(arguments: findings)
    func aDamagedIndexOpensAndTakesWritesAgain(name: String) throws {
        let cache = try cache(on: try Self.finding(name))
        cache.flush() // the open's background check of the totals row against the rows
        for (key, size) in [("inline", 16), ("file", 300)] {
            try cache.store(payload(key, size: size), metadata: Data(key.utf8), forKey: key)
            let entry = try #require(try cache.entry(forKey: key))
            #expect(entry.data == payload(key, size: size) && entry.metadata == Data(key.utf8))
        }
        _ = try cache.entries()
        cache.flush()
    }

    /// SQLite opens this one cleanly; its totals row reads NULL, so every store broke a NOT NULL
    /// constraint — until the index was replaced.
    @Test func aTotalsRowThatReadsNullIsRepairedOnTheFirstStore() throws {
        let cache = try cache(on: try Self.finding("totals-row-null.sqlite"))
        #expect(cache.recovery == nil)
        try cache.store(payload("first", size: 10), metadata: nil, forKey: "first")
        guard case .databaseCorrupt(_, let aside?, let reason) = cache.recovery else {
            Issue.record("recovery: \(String(describing: cache.recovery))")
            return
        }
        #expect(reason.contains("NOT NULL"))
        #expect(FileManager.default.fileExists(atPath: aside))
        #expect(cache.count == 1 && cache.totalSize == 10)
        #expect(try cache.entry(forKey: "first")?.data == payload("first", size: 10))
    }

    /// A second DiskCache on the folder (a new process) opens the repaired index as it is.
    @Test func theRepairedIndexOpensCleanlyAfterwards() throws {
        do {
            let cache = try cache(on: try Self.finding("totals-row-null.sqlite"))
            try cache.store(payload("kept", size: 10), metadata: nil, forKey: "kept")
            cache.flush()
        }
        let reopened = try DiskCache(directory: folder.url, limits: testLimits(inlineThreshold: 64), fileSystem: PosixFileSystem())
        #expect(reopened.recovery == nil)
        #expect(try reopened.entry(forKey: "kept")?.data == payload("kept", size: 10))
    }

    /// SQLite reads this one without an error, but its rows are out of order: an entry stored in it
    /// was never found again, and its totals row (1,129 bytes) disagrees with its rows (8 bytes
    /// counted). The open's background check sees the disagreement and replaces the index.
    @Test func rowsOutOfOrderAreFoundByTheTotalsCheckAfterOpening() throws {
        let cache = try cache(on: try Self.finding("rowids-out-of-order.sqlite"))
        cache.flush()
        guard case .databaseCorrupt(_, let aside?, let reason) = cache.recovery else {
            Issue.record("recovery: \(String(describing: cache.recovery))")
            return
        }
        #expect(reason.contains("1129 bytes") && reason.contains("(14, 8)"))
        #expect(FileManager.default.fileExists(atPath: aside))
        #expect(cache.count == 0)
        try cache.store(payload("file", size: 300), metadata: nil, forKey: "file")
        #expect(try cache.entry(forKey: "file")?.data == payload("file", size: 300))
    }

    /// SQLite cannot read this one's schema (`SQLITE_TOOBIG`, not a corruption code): opening
    /// moves it aside instead of failing on every open.
    @Test func anUnreadableSchemaIsMovedAsideOnOpening() throws {
        let cache = try cache(on: try Self.finding("schema-too-big.sqlite"))
        guard case .databaseCorrupt(_, _?, let reason) = cache.recovery else {
            Issue.record("recovery: \(String(describing: cache.recovery))")
            return
        }
        #expect(reason.contains("too big"))
    }

    /// "Full" from a file whose page numbers are damaged, on a disk with room: moved aside too.
    @Test func fullOnADiskWithRoomIsDamage() throws {
        let cache = try cache(on: try Self.finding("page-limit-full.sqlite"))
        guard case .databaseCorrupt(_, _?, let reason) = cache.recovery else {
            Issue.record("recovery: \(String(describing: cache.recovery))")
            return
        }
        #expect(reason.contains("full"))
    }

    /// "Read-only" from a header's write version, in a writable folder: moved aside too.
    @Test func readOnlyInAWritableFolderIsDamage() throws {
        let cache = try cache(on: try Self.finding("write-version-7.sqlite"))
        guard case .databaseCorrupt(_, _?, let reason) = cache.recovery else {
            Issue.record("recovery: \(String(describing: cache.recovery))")
            return
        }
        #expect(reason.contains("readonly"))
    }
}
