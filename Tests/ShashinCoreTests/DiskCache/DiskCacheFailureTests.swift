import Foundation
import Testing
@testable import ShashinCore

/// A full disk and a read-only folder: stores throw typed errors, reads keep working, nothing is
/// left half-written. Real conditions where this machine allows them (a tmpfs, chmod, a read-only
/// bind mount), and always the same failures injected through the file layer.
@Suite("DiskCache failures")
struct DiskCacheFailureTests {
    let folder = TemporaryFolder()

    @Test func aFullTmpfsFailsStoresWithOutOfSpaceAndKeepsServingReads() throws {
        guard let mount = FileSystemConditions.mountTmpfs(kilobytes: 512) else {
            // Not allowed to mount here: the injected variant below covers the behaviour.
            return try injectedFailureKeepsTheCacheWorking(code: ENOSPC)
        }
        defer { FileSystemConditions.unmount(mount); try? FileManager.default.removeItem(at: mount) }
        try withExtendedLifetime(try DiskCache(directory: mount, limits: testLimits(), fileSystem: PosixFileSystem())) { cache in
            try cache.store(payload("early", size: 20_000), metadata: nil, forKey: "early")
            try cache.store(payload("small", size: 100), metadata: nil, forKey: "small")
            var failure: DiskCacheError?
            for index in 0..<100 where failure == nil { // 100 × 20 KB cannot fit in 512 KB
                do { try cache.store(payload("\(index)", size: 20_000), metadata: nil, forKey: "\(index)") }
                catch let error as DiskCacheError { failure = error }
            }
            let error = try #require(failure)
            #expect(error.isOutOfSpace, "\(error)")
            #expect(try cache.entry(forKey: "early")?.data == payload("early", size: 20_000))
            #expect(try cache.entry(forKey: "small")?.data == payload("small", size: 100))
            #expect(!folder.dataFiles(mount).contains { $0.hasPrefix(".tmp-") })
            #expect(try cache.entries().count == cache.count)
        }
    }

    @Test func aReadOnlyFolderFailsFileStoresAndKeepsServingReads() throws {
        let cache = try DiskCache(directory: folder.url, limits: testLimits(), fileSystem: PosixFileSystem())
        try cache.store(payload("file", size: 5000), metadata: nil, forKey: "file")
        try cache.store(payload("inline", size: 100), metadata: nil, forKey: "inline")
        let data = folder.url.appendingPathComponent("data")

        if FileSystemConditions.isRoot {
            // chmod does not stop root: a read-only bind mount does.
            guard FileSystemConditions.makeReadOnlyForRoot(data) else {
                return try injectedFailureKeepsTheCacheWorking(code: EROFS)
            }
        } else {
            #expect(chmod(data.path, 0o500) == 0)
        }
        defer {
            if FileSystemConditions.isRoot { FileSystemConditions.unmount(data) } else { chmod(data.path, 0o700) }
        }

        #expect(throws: DiskCacheError.self) { try cache.store(payload("new", size: 5000), metadata: nil, forKey: "new") }
        do {
            try cache.store(payload("file", size: 6000, version: 1), metadata: nil, forKey: "file")
            Issue.record("replacing a file entry in a read-only folder succeeded")
        } catch let error as DiskCacheError {
            #expect(error.isReadOnly, "\(error)")
        }
        #expect(try cache.entry(forKey: "file")?.data == payload("file", size: 5000))
        #expect(try cache.entry(forKey: "inline")?.data == payload("inline", size: 100))
        #expect(!cache.containsEntry(forKey: "new"))
        #expect(cache.count == 2)
    }

    @Test(arguments: [ENOSPC, EROFS, EACCES])
    func injectedFailureKeepsTheCacheWorking(code: Int32) throws {
        let files = FaultyFileSystem()
        let cache = try DiskCache(directory: folder.url, limits: testLimits(), fileSystem: files)
        try cache.store(payload("before", size: 5000), metadata: Data([1]), forKey: "before")

        files.fail(with: code)
        do {
            try cache.store(payload("during", size: 5000), metadata: nil, forKey: "during")
            Issue.record("the store succeeded")
        } catch let error as DiskCacheError {
            guard case .io(_, _, let reported, _) = error else { Issue.record("\(error)"); return }
            #expect(reported == code)
            #expect(code == ENOSPC ? error.isOutOfSpace : error.isReadOnly)
            #expect(error.description.contains("errno \(code)"))
        }
        // Replacing an entry fails without losing the one there.
        #expect(throws: DiskCacheError.self) { try cache.store(payload("before", size: 7000, version: 1), metadata: nil, forKey: "before") }
        #expect(try cache.entry(forKey: "before")?.data == payload("before", size: 5000))
        #expect(try cache.entry(forKey: "before")?.metadata == Data([1]))
        #expect(!cache.containsEntry(forKey: "during"))
        #expect(folder.dataFiles().count == 1)

        files.fail(with: nil)
        try cache.store(payload("after", size: 5000), metadata: nil, forKey: "after")
        #expect(try cache.entry(forKey: "after")?.data == payload("after", size: 5000))
    }

    @Test func theIndexRefusingWritesIsATypedError() throws {
        let cache = try DiskCache(directory: folder.url, limits: testLimits(), fileSystem: PosixFileSystem())
        try cache.store(Data([1]), metadata: nil, forKey: "before")
        // SQLite's own limit on the database's pages: it then fails writes as a full disk does.
        try cache.store.locked { try cache.store.index.database.execute("PRAGMA max_page_count = 1") }
        var failure: DiskCacheError?
        for index in 0..<50 where failure == nil {
            do { try cache.store(payload("\(index)", size: 900), metadata: nil, forKey: "\(index)") }
            catch let error as DiskCacheError { failure = error }
        }
        let error = try #require(failure)
        #expect(error.isOutOfSpace, "\(error)")
        #expect(try cache.entry(forKey: "before")?.data == Data([1]))
    }

    @Test func aFolderThatCannotBeCreatedIsCannotOpen() throws {
        let file = folder.url.appendingPathComponent("plain-file")
        #expect(FileManager.default.createFile(atPath: file.path, contents: Data()))
        do {
            _ = try DiskCache(configuration: .init(directory: file.appendingPathComponent("cache")))
            Issue.record("opened a cache under a plain file")
        } catch let error as DiskCacheError {
            guard case .cannotOpen = error else { Issue.record("\(error)"); return }
            #expect(error.description.contains("Cannot open"))
        }
        #expect(throws: DiskCacheError.self) { try DiskCache(configuration: .init(directory: URL(string: "https://example.com/cache")!)) }
    }
}
