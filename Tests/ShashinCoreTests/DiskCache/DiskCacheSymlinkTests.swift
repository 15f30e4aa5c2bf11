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
