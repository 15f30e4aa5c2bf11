import Foundation
import Testing
@testable import ShashinCore

/// Symbolic links planted in a cache folder lead nothing out of it.
@Suite("DiskCache and planted symbolic links")
struct DiskCacheSymlinkTests {
    let folder = TemporaryFolder()

    @Test("an entry's file replaced by a link to a file outside is a miss, never the outside bytes")
    func entryFileLink() throws {
        let root = folder.url.appendingPathComponent("cache")
        let cache = try DiskCache(directory: root, limits: testLimits(), fileSystem: PosixFileSystem())
        let bytes = payload("entry", size: 5000)
        try cache.store(bytes, metadata: nil, forKey: "k")
        let data = root.path + "/data"
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: data).first)
        let outside = folder.url.appendingPathComponent("secret")
        try Data(repeating: 0x53, count: bytes.count).write(to: outside) // same size: only the link check stops it
        try FileManager.default.removeItem(atPath: data + "/" + name)
        try FileManager.default.createSymbolicLink(atPath: data + "/" + name, withDestinationPath: outside.path)
        #expect(try cache.entry(forKey: "k") == nil)
        #expect(try Data(contentsOf: outside) == Data(repeating: 0x53, count: bytes.count)) // untouched
    }

    @Test("an index row naming a file outside the data folder reads nothing there and removes nothing there")
    func rowNamingAPathOutside() throws {
        let root = folder.url.appendingPathComponent("cache-rows")
        let outside = folder.url.appendingPathComponent("keep-me")
        let bytes = payload("entry", size: 5000)
        try Data(repeating: 0x4b, count: bytes.count).write(to: outside) // same size as the entry
        do {
            let cache = try DiskCache(directory: root, limits: testLimits(), fileSystem: PosixFileSystem())
            try cache.store(bytes, metadata: nil, forKey: "k")
            try cache.store(bytes, metadata: nil, forKey: "j")
            cache.flush()
        }
        // A tamperer (or damage) points both rows at the outside file.
        let database = try SQLiteDatabase(path: root.path + "/index.sqlite")
        for (key, file) in [("k", "../../keep-me"), ("j", "../../keep-me")] {
            let update = try database.prepare("UPDATE entries SET file = ?2 WHERE id = ?1")
            update.bind(1, DiskStore.rowID(for: key))
            update.bind(2, file)
            try update.run()
        }
        let cache = try DiskCache(directory: root, limits: testLimits(), fileSystem: PosixFileSystem())
        #expect(try cache.entry(forKey: "k") == nil) // read: a miss, not the outside bytes
        try cache.removeEntry(forKey: "j")            // removed: the row, not the outside file
        #expect(try Data(contentsOf: outside) == Data(repeating: 0x4b, count: bytes.count))
    }

    @Test("a data folder replaced by a link is refused on open; nothing is written through it")
    func dataFolderLink() throws {
        let root = folder.url.appendingPathComponent("cache2")
        let elsewhere = folder.url.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root.path + "/data", withDestinationPath: elsewhere.path)
        #expect(throws: DiskCacheError.self) {
            try DiskCache(directory: root, limits: testLimits(), fileSystem: PosixFileSystem())
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)
    }

    @Test("an index replaced by a link is not opened through it")
    func indexLink() throws {
        let root = folder.url.appendingPathComponent("cache3")
        let outside = folder.url.appendingPathComponent("outside.sqlite")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Data().write(to: outside)
        try FileManager.default.createSymbolicLink(atPath: root.path + "/index.sqlite", withDestinationPath: outside.path)
        _ = try? DiskCache(directory: root, limits: testLimits(), fileSystem: PosixFileSystem())
        #expect(try Data(contentsOf: outside).isEmpty) // SQLite never wrote through the link
    }
}
