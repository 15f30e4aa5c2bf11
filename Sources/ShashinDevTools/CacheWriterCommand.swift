import ArgumentParser
import Foundation
import Shashin
import ShashinToolSupport

/// `shashin-dev cache-writer --dir D --seed S`: stores entries of known content into a disk cache as
/// fast as it can, forever, for the crash test that kills it with SIGKILL mid-write
/// (`Tests/ShashinTests/DiskCacheCrashTests.swift`). Each entry's metadata is
/// `"<seed> <version> <size>"`, from which `CacheWriterContent.bytes` gives its exact bytes.
/// Two writers on one folder (`DiskCacheTwoProcessTests`) draw keys from the same 300, so they
/// overwrite each other's entries; `--stop-file` ends one cleanly and `--keep-going` lists its errors.
struct CacheWriterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache-writer",
        abstract: "Write seed-derived entries into a disk cache until killed (for the crash test)."
    )

    @Option(help: "The cache folder.")
    var dir: String

    @Option(help: "Seed for keys, sizes and contents.")
    var seed: UInt64 = 1

    @Option(help: "Stop after this many writes (0: never).")
    var writes = 0

    @Flag(inversion: .prefixedNo, help: "Flush each entry file to the disk before committing its row.")
    var sync = true

    @Option(help: "Stop (exit 0, printing \"done <writes>\") once this file exists; checked before each write.")
    var stopFile: String?

    @Flag(help: "On a failed store or removal, print \"error: <error>\" to stderr and go on, instead of exiting.")
    var keepGoing = false

    func run() throws {
        // A small size limit, so background eviction runs while the process is killed too.
        var settings = DiskCache.Configuration(directory: URL(fileURLWithPath: dir))
        settings.sizeLimit = 4 << 20
        settings.syncsFiles = sync
        let cache = try DiskCache(configuration: settings)
        var random = SplitMix64(seed: seed)
        var version = 0
        while writes == 0 || version < writes {
            if let stopFile, access(stopFile, F_OK) == 0 { break }
            let key = "https://images.example.com/\(random.next() % 300).jpg"
            // Sizes on both sides of the inline threshold: 0.1 KB to 200 KB.
            let size = Int(random.next() % 200_000) + 100
            do {
                if random.next() % 16 == 0 {
                    try cache.removeEntry(forKey: key)
                } else {
                    let metadata = Data("\(seed) \(version) \(size)".utf8)
                    try cache.store(CacheWriterContent.bytes(seed: seed, version: version, size: size), metadata: metadata, forKey: key)
                }
            } catch where keepGoing {
                FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            }
            if version == 0 { FileHandle.standardOutput.write(Data("ready\n".utf8)) } // unbuffered: the test waits for it
            version += 1
        }
        FileHandle.standardOutput.write(Data("done \(version)\n".utf8))
    }
}

/// The content the crash tests expect: the same formula is in `DiskCacheCrashTests` (a test
/// cannot import this tool).
enum CacheWriterContent {
    static func bytes(seed: UInt64, version: Int, size: Int) -> Data {
        SplitMix64.bytes(count: size, seed: seed &* 1_000_003 &+ UInt64(version))
    }
}
