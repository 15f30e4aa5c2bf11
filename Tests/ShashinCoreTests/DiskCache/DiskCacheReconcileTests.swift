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

    #if os(Linux)
    /// The folder lock is released when the last instance goes, not when the store object is
    /// freed: another opener in this process (or another process) is alone at once.
    @Test func releasingTheLastInstanceReleasesTheFolderLockAtOnce() throws {
        var cache: DiskCache? = try makeCache()
        cache?.flush()
        let heldByBackgroundWork = cache?.store
        #expect(!folderLockIsFree(), "an open cache holds no lock") // (this check's close drops it)
        cache = nil
        #expect(folderLockIsFree())
        withExtendedLifetime(heldByBackgroundWork) {}
    }

    /// The folder lock belongs to this process, not to copies of its descriptor. Every child a
    /// process spawns holds a copy of each descriptor from its fork until its exec (and this one
    /// keeps it for its life): closing the last instance must still leave the folder unlocked,
    /// so the next open finds itself alone and removes a stray.
    @Test func aChildHoldingACopyOfTheLockDescriptorDoesNotKeepTheFolderLocked() throws {
        var cache: DiskCache? = try makeCache()
        cache?.flush()
        let child = try ChildHoldingDescriptor(try #require(cache?.store.lockDescriptor))
        defer { child.stop() }
        cache = nil
        #expect(folderLockIsFree(), "the lock is still held after the last instance went")

        let stray = String(repeating: "c", count: 32) + "-0000000000000000"
        #expect(FileManager.default.createFile(atPath: folder.path + "/data/" + stray, contents: Data([1, 2, 3])))
        let reopened = try makeCache()
        reopened.flush()
        #expect(!folder.dataFiles().contains(stray), "the reopen did not find itself alone")
    }

    /// Whether any process, this one included, holds the folder lock: an open-file-description
    /// lock conflicts with every other lock on the file, even this process's own record locks.
    func folderLockIsFree() -> Bool {
        let descriptor = open(folder.path + "/lock", O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var request = flock()
        request.l_type = Int16(F_WRLCK)
        request.l_whence = Int16(SEEK_SET)
        let openFileDescriptionSetLock: Int32 = 37 // F_OFD_SETLK (<fcntl.h> with _GNU_SOURCE)
        return fcntl(descriptor, openFileDescriptionSetLock, &request) == 0
    }

    /// `/bin/sleep` spawned with a copy of `descriptor` kept open across its exec, as a forked
    /// child holds one until it execs.
    final class ChildHoldingDescriptor {
        let pid: pid_t

        init(_ descriptor: Int32) throws {
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            // dup2 onto another number clears close-on-exec on the child's copy.
            posix_spawn_file_actions_adddup2(&actions, descriptor, 200)
            let arguments: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("60"), nil]
            defer { arguments.forEach { free($0) } }
            var pid: pid_t = 0
            let status = posix_spawn(&pid, "/bin/sleep", &actions, nil, arguments, environ)
            guard status == 0 else { throw TestFailure("posix_spawn: \(String(cString: strerror(status)))") }
            self.pid = pid
        }

        func stop() {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }
    #endif

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
