import Foundation
import Testing
@testable import ShashinCore

@Suite("DiskCache reconciling")
struct DiskCacheReconcileTests {
    let folder = TemporaryFolder()

    func makeCache() throws -> DiskCache {
        try DiskCache(directory: folder.url, limits: testLimits(), fileSystem: PosixFileSystem())
    }

    func fileName(of key: String, in cache: DiskCache) throws -> String {
        let info = try #require(try cache.entries().first { $0.key == key })
        guard case .file(let name) = info.storage else { throw TestFailure("\(key) is not in a file") }
        return name
    }

    @Test func aFileDeletedByHandIsAMissAndLosesItsRow() throws {
        let cache = try makeCache()
        try cache.store(payload("a", size: 5000), metadata: nil, forKey: "a")
        try FileManager.default.removeItem(atPath: folder.path + "/data/" + fileName(of: "a", in: cache))
        #expect(try cache.entry(forKey: "a") == nil)
        #expect(cache.count == 0 && cache.totalSize == 0)
    }

    @Test func aTruncatedFileIsAMissNotTornData() throws {
        let cache = try makeCache()
        try cache.store(payload("a", size: 5000), metadata: nil, forKey: "a")
        let path = folder.path + "/data/" + (try fileName(of: "a", in: cache))
        #expect(truncate(path, 2500) == 0)
        #expect(try cache.entry(forKey: "a") == nil)
        #expect(cache.count == 0)
        #expect(folder.dataFiles().isEmpty)
    }

    @Test func aFileThatGrewIsAMiss() throws {
        let cache = try makeCache()
        try cache.store(payload("a", size: 5000), metadata: nil, forKey: "a")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: folder.path + "/data/" + fileName(of: "a", in: cache)))
        handle.seekToEndOfFile()
        handle.write(Data([0xff]))
        handle.closeFile()
        #expect(try cache.entry(forKey: "a") == nil)
    }

    @Test func openingRemovesStrayFilesAndRowsWithoutFiles() throws {
        var lostName = ""
        do {
            let cache = try makeCache()
            try cache.store(payload("kept", size: 5000), metadata: nil, forKey: "kept")
            try cache.store(payload("lost", size: 5000), metadata: nil, forKey: "lost")
            try cache.store(payload("torn", size: 5000), metadata: nil, forKey: "torn")
            try cache.store(payload("inline", size: 10), metadata: nil, forKey: "inline")
            lostName = try fileName(of: "lost", in: cache)
            #expect(truncate(folder.path + "/data/" + (try fileName(of: "torn", in: cache)), 100) == 0)
            cache.flush()
        }
        try FileManager.default.removeItem(atPath: folder.path + "/data/" + lostName)
        for stray in [".tmp-0123456789abcdef", "stray", String(repeating: "a", count: 32) + "-0000000000000000"] {
            #expect(FileManager.default.createFile(atPath: folder.path + "/data/" + stray, contents: Data([1, 2, 3])))
        }

        let cache = try makeCache()
        cache.flush() // reconciling runs in the background after open
        #expect(Set(try cache.entries().map(\.key)) == ["kept", "inline"])
        #expect(folder.dataFiles() == [try fileName(of: "kept", in: cache)])
        #expect(cache.count == 2 && cache.totalSize == 5010)
        #expect(try cache.entry(forKey: "kept")?.data == payload("kept", size: 5000))
    }

    /// Background work (an access-time write, the read-session timer) may hold the store for a
    /// moment after the last `DiskCache` on the folder is released. Reopening then must still
    /// find the folder closed by this process, and reconcile.
    @Test func reopeningAfterTheLastInstanceReconcilesWhileBackgroundWorkStillHoldsTheStore() throws {
        var cache: DiskCache? = try makeCache()
        try cache?.store(payload("kept", size: 5000), metadata: nil, forKey: "kept")
        cache?.flush() // its own reconciling, after opening alone, is done
        let heldByBackgroundWork = cache?.store
        cache = nil
        let stray = String(repeating: "b", count: 32) + "-0000000000000000"
        let descriptor = open(folder.path + "/data/" + stray, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        #expect(descriptor >= 0, "errno \(errno)")
        close(descriptor)

        let reopened = try makeCache()
        reopened.flush()
        #expect(reopened.store !== heldByBackgroundWork)
        #expect(!folder.dataFiles().contains(stray))
        #expect(try reopened.entry(forKey: "kept")?.data == payload("kept", size: 5000))
        withExtendedLifetime(heldByBackgroundWork) {}
    }

    /// The folder lock is released when the last instance goes, not when the store object is
    /// freed: another opener in this process (or another process) is alone at once.
    @Test func releasingTheLastInstanceReleasesTheFolderLockAtOnce() throws {
        var cache: DiskCache? = try makeCache()
        let heldByBackgroundWork = cache?.store
        cache = nil
        let descriptor = open(folder.path + "/lock", O_RDWR | O_CLOEXEC)
        defer { close(descriptor) }
        #expect(descriptor >= 0)
        #expect(flock(descriptor, LOCK_EX | LOCK_NB) == 0)
        withExtendedLifetime(heldByBackgroundWork) {}
    }

    /// Two instances on one folder share a store; releasing one keeps it open for the other.
    @Test func releasingOneOfTwoInstancesKeepsTheStoreOpen() throws {
        var first: DiskCache? = try makeCache()
        let second = try makeCache()
        #expect(first?.store === second.store)
        try first?.store(payload("a", size: 5000), metadata: nil, forKey: "a")
        first = nil
        #expect(try second.entry(forKey: "a")?.data == payload("a", size: 5000))
        try second.store(payload("b", size: 10), metadata: nil, forKey: "b")
        #expect(second.count == 2)
    }

    @Test func aDamagedIndexIsMovedAsideAndTheCacheStartsEmpty() throws {
        do {
            let cache = try makeCache()
            try cache.store(payload("a", size: 5000), metadata: nil, forKey: "a")
            cache.flush()
        }
        let index = folder.path + "/index.sqlite"
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: index + suffix) }
        try Data(repeating: 0x5a, count: 8192).write(to: URL(fileURLWithPath: index))

        let cache = try makeCache()
        guard case .databaseCorrupt(_, let aside?, _) = cache.recovery else {
            Issue.record("expected a recovery, got \(String(describing: cache.recovery))"); return
        }
        #expect(FileManager.default.fileExists(atPath: aside))
        #expect(cache.recovery?.description.contains("moved aside") == true)
        cache.flush()
        #expect(cache.count == 0)
        #expect(folder.dataFiles().isEmpty) // its file had no row any more
        try cache.store(Data([1]), metadata: nil, forKey: "b")
        #expect(try cache.entry(forKey: "b")?.data == Data([1]))
    }

    @Test func anIndexTruncatedToNothingOpensEmpty() throws {
        do { _ = try makeCache() }
        let index = folder.path + "/index.sqlite"
        #expect(truncate(index, 0) == 0)
        let cache = try makeCache()
        try cache.store(Data([1]), metadata: nil, forKey: "b")
        #expect(cache.count == 1)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
