// The disk cache's store cost at 100,000 entries, and the removal of one image's processed
// variants: built for this tree and, by scripts/bench-disk-store.sh, for a baseline commit
// (with -DBASELINE: the API before processed variants were filed in groups), and run
// alternately in one run. Prints one JSON line per run.
import Foundation
import ShashinCore

let arguments = CommandLine.arguments
let folder = arguments.count > 1 ? arguments[1] : NSTemporaryDirectory() + "shashin-disk-store-\(getpid())"
let count = arguments.count > 2 ? Int(arguments[2]) ?? 100_000 : 100_000
let passes = arguments.count > 3 ? Int(arguments[3]) ?? 21 : 21
let batch = 1000

func bytes(_ seed: Int) -> Data {
    var state = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15
    var data = Data(count: 4096)
    data.withUnsafeMutableBytes { raw in
        for index in stride(from: 0, to: 4096, by: 8) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            raw.storeBytes(of: state, toByteOffset: index, as: UInt64.self)
        }
    }
    return data
}

/// The process's CPU time in seconds: unlike the wall clock, it does not count the time other
/// processes held the cores, so it varies less on a shared machine.
func cpuSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Runs `body`; returns its wall-clock and CPU seconds.
func seconds(_ body: () throws -> Void) rethrows -> (wall: Double, cpu: Double) {
    let start = DispatchTime.now().uptimeNanoseconds, cpuStart = cpuSeconds()
    try body()
    return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, cpuSeconds() - cpuStart)
}

#if BASELINE
let cache = try DiskCache(directory: URL(fileURLWithPath: folder), sizeLimit: .max, syncsFiles: false)
/// Today's processed result: a key of its own, no group.
@MainActor func storeProcessed(_ data: Data, key: String, image: String) throws { try cache.store(data, metadata: Data(count: 200), forKey: key) }
@MainActor func removeVariants(of image: String) throws {
    for entry in try cache.entries() where entry.key.hasPrefix("processed \(image) ") { try cache.removeEntry(forKey: entry.key) }
}
#else
var settings = DiskCache.Configuration(directory: URL(fileURLWithPath: folder))
settings.sizeLimit = .max
settings.syncsFiles = false
let cache = try DiskCache(configuration: settings)
@MainActor func storeProcessed(_ data: Data, key: String, image: String) throws {
    try cache.store(data, metadata: Data(count: 200), forKey: key, group: image)
}
@MainActor func removeVariants(of image: String) throws { try cache.removeEntries(inGroup: image) }
#endif

try? FileManager.default.removeItem(atPath: folder)
for index in 0..<count {
    try cache.store(bytes(index), metadata: Data(count: 200), forKey: "https://images.example.com/photos/\(index).jpg")
}
cache.flush()
var next = count
@MainActor func keys() -> [String] {
    defer { next += batch }
    return (next..<(next + batch)).map { "https://images.example.com/photos/\($0).jpg" }
}
// `passes` passes, each: 1,000 originals, 1,000 processed results, one image's 5 variants removed.
var originals: [Double] = [], processed: [Double] = [], removals: [Double] = []
var originalsCPU: [Double] = [], processedCPU: [Double] = []
for _ in 0..<passes {
    let original = try seconds {
        for (index, key) in keys().enumerated() { try cache.store(bytes(index), metadata: Data(count: 200), forKey: key) }
    }
    originals.append(original.wall * 1e6 / Double(batch))
    originalsCPU.append(original.cpu * 1e6 / Double(batch))
    let result = try seconds {
        for (index, key) in keys().enumerated() { try storeProcessed(bytes(index), key: "processed \(key) thumb(300)", image: key) }
    }
    processed.append(result.wall * 1e6 / Double(batch))
    processedCPU.append(result.cpu * 1e6 / Double(batch))
    let image = "https://images.example.com/removed/\(next).jpg"
    for variant in 0..<5 { try storeProcessed(bytes(variant), key: "processed \(image) v\(variant)", image: image) }
    removals.append(try seconds { try removeVariants(of: image) }.wall * 1e3)
    cache.flush()
}
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
print("{\"entries\":\(count),\"passes\":\(passes),\"storeMicroseconds\":\(median(originals)),\"storeCPUMicroseconds\":\(median(originalsCPU)),"
      + "\"processedStoreMicroseconds\":\(median(processed)),\"processedStoreCPUMicroseconds\":\(median(processedCPU)),"
      + "\"removalMilliseconds\":\(median(removals))}")
try? FileManager.default.removeItem(atPath: folder)
