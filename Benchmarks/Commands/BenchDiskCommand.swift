import ArgumentParser
import Foundation
import Shashin
import ShashinToolSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `shashin-bench disk`: the disk cache's benchmarks, printed as Markdown tables.
///
/// - `thresholds`: reading entries of 1–256 KB stored inline in the SQLite index against the
///   same entries in files, to find where files start to win (`DiskCache.defaultInlineThreshold`).
/// - `scale`: at 1k, 10k and 100k entries, open time, lookup + read of a 50 KB entry and an
///   eviction sweep, against `FilePerEntryStore` (a file per entry, no index) and against
///   `Data(contentsOf:)` of a plain file with the same bytes, measured in the same run,
///   alternating which goes first. Build in release mode (`make bench` does).
/// - `read`: only the 50 KB lookup + read of `scale`, at the first of `counts` entries, with more
///   sides: the entry inline (the default threshold) and in a file, `Data(contentsOf:)` of one
///   plain file (the goal's baseline) and of as many plain files as there are probes, and a bare
///   `open`/`fstat`/`read` of one file (the least any file read costs); then lone reads, 20 ms
///   apart. Seconds, not minutes: for before/after comparisons and profiling (`--only`).
struct BenchDiskCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disk",
        abstract: "Measure the disk cache against a file-per-entry store; prints Markdown tables."
    )

    enum Mode: String, ExpressibleByArgument { case thresholds, scale, read, store, all }

    @Option(help: "thresholds, scale, read, store or all (all: thresholds, scale and store).")
    var mode: Mode = .all

    /// One folder per process, so that two runs at once (two `make test`s) never share one.
    @Option(help: "Scratch folder (emptied first and removed after).")
    var dir = NSTemporaryDirectory() + "shashin-bench-disk-\(ProcessInfo.processInfo.processIdentifier)"

    @Option(help: "Entry counts for the scale benchmark, comma-separated.")
    var counts = "1000,10000,100000"

    @Option(help: "Passes per measurement (the median is reported).")
    var passes = 15

    @Option(help: "read mode: run only the sides whose names contain this (for profiling one of them).")
    var only: String?

    func run() throws {
        try? FileManager.default.removeItem(atPath: dir)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sizes = counts.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        switch mode {
        case .thresholds: try thresholds()
        case .scale: try scale(sizes)
        case .read: try read(count: sizes.first ?? 1000)
        case .store: try storeCost(count: sizes.last ?? 100_000)
        case .all: try thresholds(); try scale(sizes); try storeCost(count: sizes.last ?? 100_000)
        }
    }

    /// A cache in `url` with no size limit, unsynced files, and `inlineThreshold` (default the cache's).
    static func cache(_ url: URL, inlineThreshold: Int = DiskCache.defaultInlineThreshold) throws -> DiskCache {
        var settings = DiskCache.Configuration(directory: url)
        settings.sizeLimit = .max
        settings.inlineThreshold = inlineThreshold
        settings.syncsFiles = false
        return try DiskCache(configuration: settings)
    }

    // MARK: - Store

    /// The cost of a store into a cache that holds `count` entries: 4 KB entries (a thumbnail, an
    /// original of a small image), each of 1,000 stores per pass timed in all, alternating plain
    /// stores (an original) and stores filed under a group (a processed result, under its image's
    /// name). Then the removal of one image's 5 processed results: through the group index,
    /// against finding them by listing every entry (`entries()`) and matching keys.
    func storeCost(count: Int) throws {
        let folder = dir + "/store-\(count)"
        let cache = try Self.cache(URL(fileURLWithPath: folder))
        let metadata = Data(repeating: 2, count: 200)
        for index in 0..<count {
            try cache.store(BenchBytes.make(4096, seed: index), metadata: metadata, forKey: "https://images.example.com/photos/\(index).jpg")
        }
        cache.flush()
        let batch = 1000
        var plain: [Double] = [], grouped: [Double] = []
        var next = count
        for pass in 0..<(passes * 2) {
            let keys = (next..<(next + batch)).map { "https://images.example.com/photos/\($0).jpg" }
            next += batch
            if pass % 2 == 0 {
                plain.append(try seconds {
                    for (index, key) in keys.enumerated() { try cache.store(BenchBytes.make(4096, seed: index), metadata: metadata, forKey: key) }
                } * 1e6 / Double(batch))
            } else {
                grouped.append(try seconds {
                    for (index, key) in keys.enumerated() {
                        try cache.store(BenchBytes.make(4096, seed: index), metadata: metadata, forKey: "processed " + key + " thumb(300)",
                                        group: key)
                    }
                } * 1e6 / Double(batch))
            }
        }
        cache.flush()
        // One image's processed results, removed through the group and by a listing.
        var byGroup: [Double] = [], byListing: [Double] = []
        for pass in 0..<passes {
            let name = "https://images.example.com/removed/\(pass).jpg"
            for variant in 0..<5 {
                try cache.store(BenchBytes.make(4096, seed: variant), metadata: metadata, forKey: "processed \(name) v\(variant)", group: name)
            }
            if pass % 2 == 0 {
                byGroup.append(try seconds { try cache.removeEntries(inGroup: name) } * 1e3)
            } else {
                byListing.append(try seconds {
                    for entry in try cache.entries() where entry.key.hasPrefix("processed \(name) ") { try cache.removeEntry(forKey: entry.key) }
                } * 1e3)
            }
        }
        print("| entries | plain store µs | grouped store µs | grouped ÷ plain | remove 5 variants by group, ms | by listing, ms |")
        print("|---|---|---|---|---|---|")
        print("| \(count) | \(format(median(plain), digits: 2)) | \(format(median(grouped), digits: 2)) | \(format(median(grouped) / median(plain), digits: 2))× | \(format(median(byGroup), digits: 3)) | \(format(median(byListing), digits: 1)) |")
        try? FileManager.default.removeItem(atPath: folder)
    }

    // MARK: - Inline or file

    func thresholds() throws {
        print("| entry size | inline read µs | file read µs | inline ÷ file |")
        print("|---|---|---|---|")
        for kilobytes in [1, 4, 8, 16, 32, 48, 64, 96, 128, 256] {
            let size = kilobytes << 10
            let count = max(100, min(1000, (64 << 20) / size))
            let folder = dir + "/thresholds-\(kilobytes)"
            let inline = try Self.cache(URL(fileURLWithPath: folder + "/inline"), inlineThreshold: .max)
            let files = try Self.cache(URL(fileURLWithPath: folder + "/files"), inlineThreshold: 0)
            var keys: [String] = []
            for index in 0..<count {
                let key = "https://images.example.com/\(kilobytes)/\(index).jpg"
                let data = BenchBytes.make(size, seed: index)
                try inline.store(data, metadata: Data(repeating: 1, count: 200), forKey: key)
                try files.store(data, metadata: Data(repeating: 1, count: 200), forKey: key)
                keys.append(key)
            }
            var random = SplitMix64(seed: UInt64(kilobytes))
            keys.shuffle(using: &random)
            let (inlineMicros, fileMicros) = try interleaved(
                { try readAll(inline, keys, size) }, { try readAll(files, keys, size) }, perPass: keys.count)
            print("| \(kilobytes) KB | \(format(inlineMicros)) | \(format(fileMicros)) | \(format(inlineMicros / fileMicros, digits: 2))× |")
            inline.flush(); files.flush()
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    private func readAll(_ cache: DiskCache, _ keys: [String], _ size: Int) throws {
        for key in keys {
            guard let entry = try cache.entry(forKey: key), entry.data.count == size else { throw ValidationError("missing \(key)") }
        }
    }

    // MARK: - Scale

    func scale(_ counts: [Int]) throws {
        print("")
        print("| entries | open: DiskCache ms | open: file-per-entry scan ms | lookup+read 50 KB: DiskCache µs | file-per-entry µs | plain `Data(contentsOf:)` µs | DiskCache ÷ plain | DiskCache ÷ file-per-entry | eviction sweep (30%): DiskCache ms | file-per-entry ms |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for count in counts {
            let folder = dir + "/scale-\(count)"
            let cacheURL = URL(fileURLWithPath: folder + "/cache")
            let baseline = try FilePerEntryStore(folder: folder + "/files")
            let probeCount = min(200, count)
            let stride = count / probeCount
            var probes: [String] = []
            let probeBytes = BenchBytes.make(50_000, seed: 7)
            do {
                let cache = try Self.cache(cacheURL)
                for index in 0..<count {
                    let key = "https://images.example.com/photos/\(index).jpg"
                    let isProbe = index % stride == 0 && probes.count < probeCount
                    // Thumbnails of 4 KB around the 50 KB entries that are read.
                    let data = isProbe ? probeBytes : BenchBytes.make(4096, seed: index)
                    try cache.store(data, metadata: Data(repeating: 2, count: 200), forKey: key)
                    try baseline.store(data, forKey: key)
                    if isProbe { probes.append(key) }
                }
                cache.flush()
            }
            let plain = URL(fileURLWithPath: folder + "/plain.bin")
            try probeBytes.write(to: plain)

            // Open: a fresh store each time (the previous one is closed when its cache goes).
            var opens: [Double] = []
            var scans: [Double] = []
            for _ in 0..<5 {
                var cache: DiskCache?
                opens.append(try seconds { cache = try Self.cache(cacheURL) } * 1e3)
                cache?.flush() // reconciling after open runs in the background: not on the path measured
                cache = nil
                scans.append(seconds { _ = baseline.scan() } * 1e3)
            }

            let cache = try Self.cache(cacheURL)
            cache.flush()
            var random = SplitMix64(seed: UInt64(count))
            probes.shuffle(using: &random)
            var ours: [Double] = [], theirs: [Double] = [], plains: [Double] = []
            for pass in 0..<(passes * 2) {
                let order = pass % 3
                for step in 0..<3 {
                    switch (order + step) % 3 {
                    case 0: ours.append(try seconds { try readAll(cache, probes, 50_000) } * 1e6 / Double(probes.count))
                    case 1: theirs.append(try seconds {
                        for key in probes { guard baseline.read(forKey: key)?.count == 50_000 else { throw ValidationError("baseline miss") } }
                    } * 1e6 / Double(probes.count))
                    default: plains.append(try seconds {
                        for _ in probes { guard try Data(contentsOf: plain).count == 50_000 else { throw ValidationError("plain") } }
                    } * 1e6 / Double(probes.count))
                    }
                }
            }
            let ourRead = median(ours), theirRead = median(theirs), plainRead = median(plains)

            // Eviction: over the limit by one byte, swept down to 70% of it (30% of the bytes go).
            let total = cache.totalSize
            cache.configuration.sizeLimit = total - 1
            let ourSweep = seconds { cache.trim() } * 1e3
            let theirSweep = seconds { baseline.evict(downTo: Int(Double(total - 1) * 0.7)) } * 1e3

            print("| \(count) | \(format(median(opens), digits: 2)) | \(format(median(scans), digits: 1)) | \(format(ourRead)) | \(format(theirRead)) | \(format(plainRead)) | \(format(ourRead / plainRead, digits: 2))× | \(format(ourRead / theirRead, digits: 2))× | \(format(ourSweep, digits: 1)) | \(format(theirSweep, digits: 1)) |")
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    // MARK: - Read

    func read(count: Int) throws {
        let folder = dir + "/read-\(count)"
        let probeCount = min(200, count)
        let stride = count / probeCount
        let probeBytes = BenchBytes.make(50_000, seed: 7)
        let inline = try Self.cache(URL(fileURLWithPath: folder + "/inline"))
        // The same entries, the 50 KB ones in files (the 4 KB ones stay inline in both).
        let files = try Self.cache(URL(fileURLWithPath: folder + "/files"), inlineThreshold: 10_000)
        var probes: [String] = []
        try FileManager.default.createDirectory(atPath: folder + "/plain", withIntermediateDirectories: true)
        var plainPaths: [URL] = []
        for index in 0..<count {
            let key = "https://images.example.com/photos/\(index).jpg"
            let isProbe = index % stride == 0 && probes.count < probeCount
            let data = isProbe ? probeBytes : BenchBytes.make(4096, seed: index)
            try inline.store(data, metadata: Data(repeating: 2, count: 200), forKey: key)
            try files.store(data, metadata: Data(repeating: 2, count: 200), forKey: key)
            if isProbe {
                probes.append(key)
                let url = URL(fileURLWithPath: folder + "/plain/\(probes.count)")
                try probeBytes.write(to: url)
                plainPaths.append(url)
            }
        }
        inline.flush(); files.flush()
        let plain = plainPaths[0]
        var random = SplitMix64(seed: UInt64(count))
        probes.shuffle(using: &random)
        // Like `Data(contentsOf:)` of one file: the same entry, its bytes hot in the CPU's caches.
        let repeated = [String](repeating: probes[0], count: probes.count)

        let sides: [(name: String, body: () throws -> Void)] = [
            ("DiskCache, inline", { try readAll(inline, probes, 50_000) }),
            ("DiskCache, file", { try readAll(files, probes, 50_000) }),
            ("DiskCache, inline, one key", { try readAll(inline, repeated, 50_000) }),
            ("DiskCache, file, one key", { try readAll(files, repeated, 50_000) }),
            ("`Data(contentsOf:)`, one file", {
                for _ in probes { guard try Data(contentsOf: plain).count == 50_000 else { throw ValidationError("plain") } }
            }),
            ("`Data(contentsOf:)`, \(probes.count) files", {
                for url in plainPaths { guard try Data(contentsOf: url).count == 50_000 else { throw ValidationError("plain") } }
            }),
            ("open + fstat + read + close, one file", {
                for _ in probes { guard try Self.posixRead(plain.path).count == 50_000 else { throw ValidationError("posix") } }
            }),
        ]
        if let only {
            let chosen = sides.filter { $0.name.contains(only) }
            for side in chosen { try side.body() }
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<passes { for side in chosen { try side.body() } }
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e3
            print("\(chosen.map(\.name)): \(format(elapsed / Double(passes * probes.count * chosen.count), digits: 2)) µs per read")
            try? FileManager.default.removeItem(atPath: folder)
            return
        }
        for side in sides { try side.body() } // warm the page cache and SQLite's
        var times = [[Double]](repeating: [], count: sides.count)
        for pass in 0..<passes {
            // Rotate which side goes first.
            for step in 0..<sides.count {
                let index = (pass + step) % sides.count
                times[index].append(try seconds(sides[index].body) * 1e6 / Double(probes.count))
            }
        }
        let baseline = median(times[4])
        print("| \(count) entries, \(passes) passes | µs per read (median) | p25–p75 | ÷ `Data(contentsOf:)` one file |")
        print("|---|---|---|---|")
        for (index, side) in sides.enumerated() {
            let sorted = times[index].sorted()
            let p25 = sorted[sorted.count / 4], p75 = sorted[sorted.count * 3 / 4]
            print("| \(side.name) | \(format(median(times[index]), digits: 2)) | \(format(p25, digits: 2))–\(format(p75, digits: 2)) | \(format(median(times[index]) / baseline, digits: 2))× |")
        }

        // Reads one at a time, 20 ms apart (longer than `DiskCache`'s 10 ms read session, so each
        // lookup opens a new one): what a lone read costs, CPU caches cooled by the pause.
        var lone: [Double] = [], lonePlain: [Double] = []
        for (index, key) in probes.prefix(100).enumerated() {
            let url = plainPaths[index]
            for step in 0..<2 {
                usleep(20_000)
                if (index + step) % 2 == 0 {
                    lone.append(try seconds { try readAll(inline, [key], 50_000) } * 1e6)
                } else {
                    lonePlain.append(try seconds { guard try Data(contentsOf: url).count == 50_000 else { throw ValidationError("plain") } } * 1e6)
                }
            }
        }
        print("")
        print("| one read every 20 ms (\(lone.count) of each) | µs per read (median) | ÷ `Data(contentsOf:)` |")
        print("|---|---|---|")
        print("| DiskCache, inline | \(format(median(lone), digits: 2)) | \(format(median(lone) / median(lonePlain), digits: 2))× |")
        print("| `Data(contentsOf:)`, a different file each time | \(format(median(lonePlain), digits: 2)) | 1.00× |")
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The least a read of a whole file costs: `open`, `fstat`, one `read` into uninitialised
    /// memory handed to `Data` without a copy, `close`.
    private static func posixRead(_ path: String) throws -> Data {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ValidationError("open \(path)") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw ValidationError("fstat \(path)") }
        let size = Int(status.st_size)
        guard let buffer = malloc(size) else { throw ValidationError("malloc") }
        guard systemRead(descriptor, buffer, size) == size else { free(buffer); throw ValidationError("read \(path)") }
        return Data(bytesNoCopy: buffer, count: size, deallocator: .free)
    }

    // MARK: - Measuring

    /// Runs `first` and `second` for `passes` passes each, alternating which goes first; the
    /// median µs per operation of each.
    private func interleaved(_ first: () throws -> Void, _ second: () throws -> Void, perPass: Int) throws -> (Double, Double) {
        try first(); try second() // warm the page cache and SQLite's
        var a: [Double] = [], b: [Double] = []
        for pass in 0..<passes {
            if pass % 2 == 0 {
                a.append(try seconds(first)); b.append(try seconds(second))
            } else {
                b.append(try seconds(second)); a.append(try seconds(first))
            }
        }
        return (median(a) * 1e6 / Double(perPass), median(b) * 1e6 / Double(perPass))
    }

    private func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    private func format(_ value: Double, digits: Int = 1) -> String {
        String(format: "%.\(digits)f", value)
    }
}

/// Deterministic bytes for the benchmark's entries.
enum BenchBytes {
    static func make(_ size: Int, seed: Int) -> Data {
        SplitMix64.bytes(count: size, seed: UInt64(truncatingIfNeeded: seed))
    }
}

/// `read(2)`, named apart from the command's `read(count:)`.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.read(descriptor, buffer, count)
    #else
    return Darwin.read(descriptor, buffer, count)
    #endif
}
