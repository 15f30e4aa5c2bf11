import Foundation
import Testing
@testable import ShashinCore

/// Lookups share one read transaction of the index for a short while (`SQLiteDatabase`'s read
/// session). These check what that must not change: this process's writes are seen at once,
/// another connection's (another process's) once the session ends, by itself or by `flush()`.
@Suite("DiskCache read sessions")
struct DiskCacheReadSessionTests {
    let folder = TemporaryFolder()

    func makeCache() throws -> DiskCache {
        try DiskCache(directory: folder.url, limits: testLimits(inlineThreshold: 1024), fileSystem: PosixFileSystem())
    }

    /// A second connection to the index, as another process would have.
    func otherConnection() throws -> SQLiteDatabase {
        let database = try SQLiteDatabase(path: folder.path + "/index.sqlite")
        try database.execute("PRAGMA busy_timeout = 5000")
        return database
    }

    /// Replaces the inline bytes of `key` through `database`, keeping the row's size right.
    func overwrite(_ key: String, with data: Data, through database: SQLiteDatabase) throws {
        let update = try database.prepare("UPDATE entries SET data = ?2, size = ?3 WHERE id = ?1")
        update.bind(1, DiskStore.rowID(for: key))
        update.bind(2, data)
        update.bind(3, Int64(data.count))
        try update.run()
    }

    /// Opens a session as a lookup does (one may have ended by itself since the last lookup). The
    /// check is made in the same critical section: a session a lookup opened earlier may reach
    /// its end (the store's timer) between two sections.
    func openSession(_ cache: DiskCache) {
        let isOpen = cache.store.locked { () -> Bool in
            _ = cache.store.index.database.beginReadSession()
            return cache.store.index.database.readSessionStart != nil
        }
        #expect(isOpen)
    }

    @Test func writesInsideASessionEndItAndAreSeenAtOnce() throws {
        let cache = try makeCache()
        try cache.store(payload("a", size: 500), metadata: nil, forKey: "a")
        #expect(try cache.entry(forKey: "a")?.data == payload("a", size: 500))
        openSession(cache)
        try cache.store(payload("a", size: 600, version: 1), metadata: nil, forKey: "a")
        #expect(try cache.entry(forKey: "a")?.data == payload("a", size: 600, version: 1))
        openSession(cache)
        try cache.updateMetadata(Data([7]), forKey: "a")
        #expect(try cache.entry(forKey: "a")?.metadata == Data([7]))
        openSession(cache)
        try cache.store(payload("b", size: 5000), metadata: nil, forKey: "b") // a file
        #expect(try cache.entry(forKey: "b")?.data == payload("b", size: 5000))
        openSession(cache)
        try cache.removeEntry(forKey: "a")
        #expect(try cache.entry(forKey: "a") == nil)
        openSession(cache)
        try cache.removeAll()
        #expect(try cache.entry(forKey: "b") == nil)
        #expect(cache.count == 0)
    }

    @Test func anotherConnectionsWriteIsSeenAfterFlush() throws {
        let cache = try makeCache()
        try cache.store(payload("k", size: 500), metadata: nil, forKey: "k")
        #expect(try cache.entry(forKey: "k")?.data == payload("k", size: 500))
        let other = try otherConnection()
        try overwrite("k", with: payload("k", size: 700, version: 1), through: other)
        cache.flush()
        #expect(try cache.entry(forKey: "k")?.data == payload("k", size: 700, version: 1))
    }

    @Test func aSessionEndsByItselfSoAnotherConnectionsWriteIsSeen() throws {
        let cache = try makeCache()
        try cache.store(payload("k", size: 500), metadata: nil, forKey: "k")
        #expect(try cache.entry(forKey: "k")?.data == payload("k", size: 500))
        let other = try otherConnection()
        try overwrite("k", with: payload("k", size: 700, version: 1), through: other)
        // Seen within the session's length (10 ms) plus scheduling delay on a loaded machine.
        let deadline = Date().addingTimeInterval(5)
        var seen = false
        while !seen && Date() < deadline {
            seen = try cache.entry(forKey: "k")?.data == payload("k", size: 700, version: 1)
            if !seen { usleep(2_000) }
        }
        #expect(seen)
        // No lookups: the session ends, leaving nothing open.
        let quiet = Date().addingTimeInterval(5)
        while cache.store.locked({ cache.store.index.database.readSessionStart }) != nil && Date() < quiet { usleep(2_000) }
        #expect(cache.store.locked { cache.store.index.database.readSessionStart } == nil)
    }

    @Test func listingsSeeAnotherConnectionsWritesAtOnce() throws {
        let cache = try makeCache()
        try cache.store(payload("k", size: 500), metadata: nil, forKey: "k")
        _ = try cache.entry(forKey: "k")
        let other = try otherConnection()
        try overwrite("k", with: payload("k", size: 700, version: 1), through: other)
        #expect(try cache.entries().map(\.size) == [700])
    }

    @Test func inlineBytesOfAnotherLengthThanTheRowSaysAreAMiss() throws {
        let cache = try makeCache()
        try cache.store(payload("k", size: 500), metadata: nil, forKey: "k")
        let other = try otherConnection()
        try other.execute("UPDATE entries SET data = zeroblob(10) WHERE id = \(DiskStore.rowID(for: "k"))")
        cache.flush()
        #expect(try cache.entry(forKey: "k") == nil)
    }

    @Test func manyThreadsLookingUpAndWritingStayConsistent() async throws {
        let cache = try makeCache()
        for index in 0..<20 { try cache.store(payload("k\(index)", size: 300 + index), metadata: nil, forKey: "k\(index)") }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for round in 0..<200 {
                        let key = "k\((worker * 7 + round) % 20)"
                        if round % 10 == worker {
                            try cache.store(payload(key, size: 2000, version: round), metadata: Data([UInt8(worker)]), forKey: key)
                        } else if let entry = try cache.entry(forKey: key) {
                            // Whatever version: always one that was written whole for this key.
                            let size = entry.data.count
                            let valid = size == 2000 || size == 300 + Int(key.dropFirst())!
                            #expect(valid, "\(key): \(size) bytes")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func rowIDIsTheDigestsFirstEightBytes() {
        for key in ["", "abc", String(repeating: "x", count: 200), "写真"] {
            let digest = SHA256.digest(key)
            let expected = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            #expect(SHA256.prefix64(key) == expected)
            #expect(DiskStore.rowID(for: key) == Int64(bitPattern: expected))
        }
    }
}
