import Foundation
import FuzzSupport
import ShashinCore

/// The disk cache on a damaged index: each input is the whole `index.sqlite` of a cache folder
/// (seeded with real indexes of small caches, whose entry files are copied in beside it), which
/// the cache then opens, lists, reads, writes and trims.
///
/// Whatever the bytes, opening succeeds (a damaged index is moved aside and recreated), every
/// failure is a `DiskCacheError`, and an entry stored afterwards reads back as stored.
enum DiskIndexFuzzer {
    /// The keys of the seed caches: short entries live in the index, longer ones in files.
    static let seedEntries: [(key: String, size: Int)] = (0..<14).map { i in
        ("https://images.example/\(i).png?w=\(i * 37)", i % 4 == 3 ? 200 + i * 11 : 8 + i * 3)
    }
    static let inlineThreshold = 64

    /// The seed caches' entry files, by name; `SHASHIN_FUZZ_DISK_DATA` names their folder. Bytes,
    /// not `Data`: LeakSanitizer does not see through `Data`'s tagged storage in a global and
    /// reports it leaked.
    static let entryFiles: [(name: String, bytes: [UInt8])] = {
        guard let folder = ProcessInfo.processInfo.environment["SHASHIN_FUZZ_DISK_DATA"],
              let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        return names.sorted().compactMap { name in
            FileManager.default.contents(atPath: folder + "/" + name).map { (name, [UInt8]($0)) }
        }
    }()

    /// A folder of this process's own, in memory where the system has `/dev/shm`: SQLite's
    /// fsyncs on a disk shared with builds made each input take 200 ms.
    static let root: String = {
        let parent = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        var template = Array((parent + "/shashin-fuzz-disk-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { fuzzFailure("cannot create a temporary folder") }
        return String(cString: made)
    }()

    /// Inputs run one after another on libFuzzer's thread.
    nonisolated(unsafe) static var runs = 0

    static func run(_ index: Data) {
        runs += 1
        let folder = root + "/\(runs)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        guard mkdir(folder, 0o700) == 0, mkdir(folder + "/data", 0o700) == 0,
              FileManager.default.createFile(atPath: folder + "/index.sqlite", contents: index) else {
            fuzzFailure("cannot set up \(folder)")
        }
        for file in entryFiles {
            _ = FileManager.default.createFile(atPath: folder + "/data/" + file.name, contents: Data(file.bytes))
        }
        exercise(URL(fileURLWithPath: folder, isDirectory: true))
    }

    static func exercise(_ folder: URL) {
        let cache: DiskCache
        do {
            cache = try DiskCache(directory: folder, sizeLimit: 1 << 20, inlineThreshold: inlineThreshold, syncsFiles: false)
        } catch {
            fuzzFailure("a damaged index left the cache unopenable: \(error)")
        }
        // Waits for the reconciling the open started (which checks the totals row against the rows),
        // and again at the end, so the folder can go.
        cache.flush()
        defer { cache.flush() }

        _ = (cache.count, cache.totalSize, cache.recovery)
        if let listing = try? cache.entries() {
            for info in listing.prefix(32) { _ = try? cache.entry(forKey: info.key) }
        }
        for entry in seedEntries {
            _ = cache.containsEntry(forKey: entry.key)
            _ = try? cache.entry(forKey: entry.key)
        }
        _ = try? cache.updateMetadata(Data("m".utf8), forKey: seedEntries[0].key)
        _ = try? cache.removeEntry(forKey: seedEntries[1].key)

        // Both kinds of entry, written and read back.
        for (key, size) in [("fuzz://inline", 16), ("fuzz://file", 300)] {
            let data = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            do {
                try cache.store(data, metadata: Data(key.utf8), forKey: key)
                let read = try cache.entry(forKey: key)
                if read?.data != data || read?.metadata != Data(key.utf8) {
                    fuzzFailure("\(key) read back as \(read.map { "\($0.data.count) bytes" } ?? "a miss")")
                }
            } catch {
                fuzzFailure("\(key) could not be stored and read back after opening: \(error)")
            }
        }
        cache.countLimit = 4
        cache.trim()
        _ = try? cache.entries()
    }

    /// Writes the seed indexes into `folder` (and their entry files into `folder/data`): an empty
    /// cache, a small one with entries inline and in files, and one with inline entries spanning
    /// overflow pages.
    static func makeSeeds(in folder: String) {
        let fileManager = FileManager.default
        try? fileManager.createDirectory(atPath: folder + "/data", withIntermediateDirectories: true)
        func build(_ name: String, inlineThreshold: Int, _ fill: (DiskCache) throws -> Void) {
            let work = root + "/seed-" + name
            do {
                // Closed (its WAL folded into the file) when the last reference goes.
                try {
                    let cache = try DiskCache(directory: URL(fileURLWithPath: work), inlineThreshold: inlineThreshold, syncsFiles: false)
                    try fill(cache)
                    cache.flush()
                }()
                try fileManager.copyItem(atPath: work + "/index.sqlite", toPath: folder + "/" + name + ".sqlite")
                for file in try fileManager.contentsOfDirectory(atPath: work + "/data") {
                    try? fileManager.copyItem(atPath: work + "/data/" + file, toPath: folder + "/data/" + file)
                }
            } catch {
                fuzzFailure("cannot make the seed \(name): \(error)")
            }
        }
        build("empty", inlineThreshold: inlineThreshold) { _ in }
        build("small", inlineThreshold: inlineThreshold) { cache in
            for entry in seedEntries {
                let data = Data((0..<entry.size).map { UInt8(truncatingIfNeeded: $0 ^ entry.size) })
                try cache.store(data, metadata: Data("{\"status\":200,\"key\":\"\(entry.key)\"}".utf8), forKey: entry.key)
            }
            _ = try cache.entry(forKey: seedEntries[2].key)
        }
        build("overflow", inlineThreshold: 1 << 20) { cache in
            for entry in seedEntries.prefix(4) {
                try cache.store(Data(repeating: UInt8(entry.size & 0xff), count: 5_000 + entry.size), metadata: nil, forKey: entry.key)
            }
        }
    }
}
