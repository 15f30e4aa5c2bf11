import ArgumentParser
import Foundation
import Shashin

/// `shashin bench-disk`: the disk cache's benchmarks, printed as Markdown tables.
///
/// - `thresholds`: reading entries of 1–256 KB stored inline in the SQLite index against the
///   same entries in files, to find where files start to win (`DiskCache.defaultInlineThreshold`).
/// - `scale`: at 1k, 10k and 100k entries, open time, lookup + read of a 50 KB entry and an
///   eviction sweep, against `FilePerEntryStore` (a file per entry, no index) and against
///   `Data(contentsOf:)` of a plain file with the same bytes, measured in the same run,
///   alternating which goes first. Build in release mode (`make bench` does).
struct BenchDiskCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-disk",
        abstract: "Measure the disk cache against a file-per-entry store; prints Markdown tables.",
        shouldDisplay: false
    )

    enum Mode: String, ExpressibleByArgument { case thresholds, scale, all }

    @Option(help: "thresholds, scale or all.")
    var mode: Mode = .all

    @Option(help: "Scratch folder (emptied first and removed after).")
    var dir = NSTemporaryDirectory() + "shashin-bench-disk"

    @Option(help: "Entry counts for the scale benchmark, comma-separated.")
    var counts = "1000,10000,100000"

    @Option(help: "Passes per measurement (the median is reported).")
    var passes = 15

    func run() throws {
        try? FileManager.default.removeItem(atPath: dir)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        if mode != .scale { try thresholds() }
        if mode != .thresholds {
            let sizes = counts.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            try scale(sizes)
        }
    }

    // MARK: - Inline or file

    func thresholds() throws {
        print("| entry size | inline read µs | file read µs | inline ÷ file |")
        print("|---|---|---|---|")
        for kilobytes in [1, 4, 8, 16, 32, 48, 64, 96, 128, 256] {
            let size = kilobytes << 10
            let count = max(100, min(1000, (64 << 20) / size))
            let folder = dir + "/thresholds-\(kilobytes)"
            let inline = try DiskCache(directory: URL(fileURLWithPath: folder + "/inline"), sizeLimit: .max,
                                       inlineThreshold: .max, syncsFiles: false)
            let files = try DiskCache(directory: URL(fileURLWithPath: folder + "/files"), sizeLimit: .max,
                                      inlineThreshold: 0, syncsFiles: false)
            var keys: [String] = []
            for index in 0..<count {
                let key = "https://images.example.com/\(kilobytes)/\(index).jpg"
                let data = BenchBytes.make(size, seed: index)
                try inline.store(data, metadata: Data(repeating: 1, count: 200), forKey: key)
                try files.store(data, metadata: Data(repeating: 1, count: 200), forKey: key)
                keys.append(key)
            }
            var random = BenchBytes.Generator(seed: UInt64(kilobytes))
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
                let cache = try DiskCache(directory: cacheURL, sizeLimit: .max, syncsFiles: false)
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
                opens.append(try seconds { cache = try DiskCache(directory: cacheURL, sizeLimit: .max, syncsFiles: false) } * 1e3)
                cache?.flush() // reconciling after open runs in the background: not on the path measured
                cache = nil
                scans.append(seconds { _ = baseline.scan() } * 1e3)
            }

            let cache = try DiskCache(directory: cacheURL, sizeLimit: .max, syncsFiles: false)
            cache.flush()
            var random = BenchBytes.Generator(seed: UInt64(count))
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
            cache.sizeLimit = total - 1
            let ourSweep = seconds { cache.trim() } * 1e3
            let theirSweep = seconds { baseline.evict(downTo: Int(Double(total - 1) * 0.7)) } * 1e3

            print("| \(count) | \(format(median(opens), digits: 2)) | \(format(median(scans), digits: 1)) | \(format(ourRead)) | \(format(theirRead)) | \(format(plainRead)) | \(format(ourRead / plainRead, digits: 2))× | \(format(ourRead / theirRead, digits: 2))× | \(format(ourSweep, digits: 1)) | \(format(theirSweep, digits: 1)) |")
            try? FileManager.default.removeItem(atPath: folder)
        }
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
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9e37_79b9_7f4a_7c15
            var z = state
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            return z ^ (z >> 31)
        }
    }

    static func make(_ size: Int, seed: Int) -> Data {
        var generator = Generator(seed: UInt64(truncatingIfNeeded: seed))
        var words = [UInt64](repeating: 0, count: (size + 7) / 8)
        for index in words.indices { words[index] = generator.next() }
        return words.withUnsafeBytes { Data($0.prefix(size)) }
    }
}
