import Foundation
import Shashin
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Kills a process writing to a disk cache with SIGKILL at a random moment, 20 times, and checks
/// after each reopen that every entry the cache serves is byte-identical to what was written.
/// The writer is `shashin-dev cache-writer`, built next to this test bundle.
@Suite("DiskCache crash safety")
struct DiskCacheCrashTests {
    @Test func killingTheWriterNeverLeavesATornEntry() async throws {
        // The rounds block (processes, sleeps, fsync): on a thread of their own, not the Swift pool
        // the other suites' servers run on.
        let outcome = try await offThePool { try Self.crashRounds() }
        for problem in outcome.problems { Issue.record(Comment(rawValue: problem)) }
        #expect(outcome.served > 0)
        #expect(outcome.killedWhileRunning == 20)
    }

    struct Outcome: Sendable {
        var served = 0
        var killedWhileRunning = 0
        var problems: [String] = []
    }

    static func crashRounds() throws -> Outcome {
        let executable = try Self.executable("shashin-dev")
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("shashin-crash-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var random = SystemRandomNumberGenerator()
        var outcome = Outcome()

        for round in 0..<20 {
            let seed = UInt64(round + 1) * 7919
            let writer = Process()
            writer.executableURL = executable
            // Half the rounds without fsync: writes are then short, and far more kills land mid-write.
            writer.arguments = ["cache-writer", "--dir", folder.path, "--seed", "\(seed)", round % 2 == 0 ? "--sync" : "--no-sync"]
            let output = Pipe()
            writer.standardOutput = output
            try writer.run()
            // Wait for the first write, then let it run for a random 20–300 ms.
            _ = output.fileHandleForReading.availableData
            usleep(UInt32.random(in: 20_000...300_000, using: &random))
            if writer.isRunning { outcome.killedWhileRunning += 1 }
            kill(writer.processIdentifier, SIGKILL)
            writer.waitUntilExit()
            if writer.terminationReason != .uncaughtSignal { outcome.problems.append("round \(round): the writer stopped by itself") }

            let cache = try DiskCache(configuration: .init(directory: folder))
            cache.flush() // let reconciling after the crash finish before looking at the files
            for info in try cache.entries() {
                guard let entry = try cache.entry(forKey: info.key) else { continue }
                let fields = String(decoding: entry.metadata ?? Data(), as: UTF8.self).split(separator: " ").compactMap { Int($0) }
                guard fields.count == 3 else { outcome.problems.append("round \(round): metadata \(fields)"); continue }
                let expected = Self.bytes(seed: UInt64(fields[0]), version: fields[1], size: fields[2])
                if entry.data != expected {
                    outcome.problems.append("round \(round): \(info.key) (version \(fields[1])) is not what was written")
                }
                outcome.served += 1
            }
            // After reconciling: no temporary files, and every file belongs to a row.
            let files = Set((try? FileManager.default.contentsOfDirectory(atPath: folder.path + "/data")) ?? [])
            let named = Set(try cache.entries().compactMap { info -> String? in
                if case .file(let name) = info.storage { return name } else { return nil }
            })
            if files != named { outcome.problems.append("round \(round): files without rows or rows without files") }
        }
        return outcome
    }

    /// The package's executable `name` (`shashin`, `shashin-dev`), built into the same folder as
    /// the test bundle (`swift build --build-tests` builds every product).
    static func executable(_ name: String) throws -> URL {
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent(name),
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name),
            Bundle(for: Marker.self).bundleURL.deletingLastPathComponent().appendingPathComponent(name),
        ]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw CrashTestError(description: "no \(name) executable near the tests (run `swift build --build-tests`): \(candidates.map(\.path))")
        }
        return found
    }

    private final class Marker {}

    struct CrashTestError: Error, CustomStringConvertible { let description: String }

    /// `CacheWriterContent.bytes` of the tool, repeated here: tests cannot import an executable.
    static func bytes(seed: UInt64, version: Int, size: Int) -> Data {
        var state = seed &* 1_000_003 &+ UInt64(version)
        var data = Data(count: size)
        data.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) in
            var index = 0
            while index < size {
                state &+= 0x9e37_79b9_7f4a_7c15
                var z = state
                z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
                z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
                var word = z ^ (z >> 31)
                for _ in 0..<min(8, size - index) {
                    buffer[index] = UInt8(truncatingIfNeeded: word)
                    word >>= 8
                    index += 1
                }
            }
        }
        return data
    }
}
