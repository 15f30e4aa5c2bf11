import Foundation
import Testing
@testable import ShashinCore

@Suite("DiskCache concurrency")
struct DiskCacheConcurrencyTests {
    let folder = TemporaryFolder()

    @Test func manyThreadsStoringReadingAndRemovingNeverSeeWrongBytes() throws {
        let cache = try DiskCache(directory: folder.url, limits: testLimits(sizeLimit: 400_000, inlineThreshold: 2048),
                                  fileSystem: PosixFileSystem())
        let failures = Locked<[String]>([])
        // 8 workers over 40 shared keys: each key's bytes depend on (key, version), and the
        // version is written into the metadata, so every read can be checked exactly.
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            var random = SplitMix(seed: UInt64(worker))
            for step in 0..<150 {
                let key = "key-\(random.next() % 40)"
                let version = Int(random.next() % 5)
                let size = [100, 3000, 20_000][version % 3]
                do {
                    switch random.next() % 10 {
                    case 0: try cache.removeEntry(forKey: key)
                    case 1...4: try cache.store(payload(key, size: size, version: version), metadata: Data("\(version)".utf8), forKey: key)
                    default:
                        if let entry = try cache.entry(forKey: key) {
                            let stored = Int(String(decoding: entry.metadata ?? Data(), as: UTF8.self)) ?? -1
                            let expected = payload(key, size: [100, 3000, 20_000][stored % 3], version: stored)
                            if entry.data != expected { failures.withLock { $0.append("\(key) v\(stored) at \(worker).\(step)") } }
                        }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        cache.flush()
        #expect(failures.current == [])
        let listed = try cache.entries()
        #expect(listed.count == cache.count)
        #expect(listed.reduce(0) { $0 + $1.size } == cache.totalSize)
        #expect(cache.totalSize <= 400_000)
        let files = listed.compactMap { if case .file(let name) = $0.storage { name } else { nil } }
        #expect(Set(folder.dataFiles()) == Set(files))
    }

    @Test func twoCachesOnOneFolderShareOneStore() throws {
        let first = try DiskCache(directory: folder.url, limits: testLimits(), fileSystem: PosixFileSystem())
        // Another spelling of the same folder still finds it.
        let second = try DiskCache(directory: folder.url.appendingPathComponent("data/.."), limits: testLimits(), fileSystem: PosixFileSystem())
        #expect(first.store === second.store)

        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            let cache = worker % 2 == 0 ? first : second
            for index in 0..<50 {
                let key = "\(worker)-\(index)"
                try? cache.store(payload(key, size: index * 100), metadata: nil, forKey: key)
            }
        }
        #expect(first.count == 200 && second.count == 200)
        #expect(first.totalSize == second.totalSize)
        #expect(try second.entry(forKey: "0-42")?.data == payload("0-42", size: 4200))
        try first.removeEntry(forKey: "1-10")
        #expect(!second.containsEntry(forKey: "1-10"))
        second.configuration.sizeLimit = 1234
        #expect(first.configuration.sizeLimit == 1234)
    }

    @Test func aStoreClosesWhenItsLastCacheGoes() throws {
        var store: DiskStore?
        do {
            let first = try DiskCache(directory: folder.url, limits: testLimits(), fileSystem: PosixFileSystem())
            store = first.store
            do {
                let second = try DiskCache(directory: folder.url, limits: testLimits(), fileSystem: PosixFileSystem())
                #expect(second.store === store)
            }
            #expect(store?.locked { store?.isClosed } == false)
            first.flush()
        }
        #expect(store?.locked { store?.isClosed } == true)
    }
}
