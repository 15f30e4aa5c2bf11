import Foundation
import Testing
@testable import ShashinCore

@Suite("DiskCache permissions")
struct DiskCachePermissionTests {
    let folder = TemporaryFolder()

    func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? Int)
    }

    @Test func foldersAreOwnerOnlyAndFilesReadableByTheOwnerOnly() throws {
        let root = folder.url.appendingPathComponent("nested/cache")
        let cache = try DiskCache(directory: root, limits: testLimits(), fileSystem: PosixFileSystem())
        try cache.store(payload("file", size: 5000), metadata: nil, forKey: "file")
        try cache.store(payload("inline", size: 10), metadata: nil, forKey: "inline")

        #expect(try mode(root.path) == 0o700)
        #expect(try mode(root.path + "/data") == 0o700)
        #expect(try mode(folder.path + "/nested") == 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: root.path + "/data")
        #expect(files.count == 1)
        for name in files { #expect(try mode(root.path + "/data/" + name) == 0o600) }
        for name in ["index.sqlite", "index.sqlite-wal", "index.sqlite-shm", "lock", "lock.gate"] {
            #expect(try mode(root.path + "/" + name) == 0o600, "\(name)")
        }
    }
}
