import Foundation
import Shashin
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Two `shashin-dev cache-writer` processes write into one cache folder at once, drawing keys from
/// the same 300, while this process reads the folder through a `DiskCache` of its own; one
/// writer is killed with SIGKILL mid-writes, the other is stopped cleanly, and the folder is
/// reopened. Every entry served, at any time, must be exactly one write a writer made for that
/// key (its seed, version and size replayed from the writer's generator).
@Suite("DiskCache shared by two processes")
struct DiskCacheTwoProcessTests {
    static let rounds = 8

    @Test func twoWritersAndAReaderOnOneFolderNeverServeAForeignOrTornEntry() async throws {
        let outcome = try await offThePool { try Self.sharedRounds() }
        for problem in outcome.problems { Issue.record(Comment(rawValue: problem)) }
        print("two-process disk cache: \(outcome.rounds) rounds, \(outcome.servedWhileWriting) entries served while writing, "
              + "\(outcome.servedAfterReopen) after reopening, \(outcome.writesBySurvivor) writes by the surviving writers, "
              + "\(outcome.strayFilesRemoved) files left by the killed writers and removed on reopening")
        #expect(outcome.rounds == Self.rounds)
        #expect(outcome.servedWhileWriting > 0)
        #expect(outcome.servedAfterReopen > 0)
    }

    struct Outcome: Sendable {
        var rounds = 0
        var servedWhileWriting = 0
        var servedAfterReopen = 0
        var writesBySurvivor = 0
        var strayFilesRemoved = 0
        var problems: [String] = []
    }

    static func sharedRounds() throws -> Outcome {
        let executable = try DiskCacheCrashTests.executable("shashin-dev")
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("shashin-two-process-\(UUID().uuidString)")
        let stopFile = folder.path + ".stop"
        defer {
            try? FileManager.default.removeItem(at: folder)
            unlink(stopFile)
        }
        var random = SystemRandomNumberGenerator()
        var outcome = Outcome()
        let replay = WriterReplay()

        for round in 0..<rounds {
            unlink(stopFile)
            // This process opens first: alone, it reconciles what the last round left while the
            // writers wait for its lock.
            var reader: DiskCache? = try DiskCache(configuration: .init(directory: folder))
            let doomedSeed = UInt64(round * 2 + 1) * 7919, survivorSeed = UInt64(round * 2 + 2) * 7919
            // Alternate which of the two is fsyncing: an fsynced write is long, so kills land mid-file.
            let doomed = try Writer(executable, folder: folder, seed: doomedSeed, sync: round % 2 == 0, stopFile: nil)
            let survivor = try Writer(executable, folder: folder, seed: survivorSeed, sync: round % 2 == 1, stopFile: stopFile)
            doomed.waitUntilReady()
            survivor.waitUntilReady()

            // Read while both write, for a random 300–700 ms, then kill one and read on for 300 ms.
            let killAt = Date().addingTimeInterval(Double.random(in: 0.3...0.7, using: &random))
            outcome.servedWhileWriting += read(reader!, until: killAt, replay: replay, round: round, problems: &outcome.problems)
            if !doomed.process.isRunning { outcome.problems.append("round \(round): the writer to kill stopped by itself") }
            kill(doomed.process.processIdentifier, SIGKILL)
            doomed.process.waitUntilExit()
            outcome.servedWhileWriting += read(reader!, until: Date().addingTimeInterval(0.3), replay: replay, round: round, problems: &outcome.problems)

            // Stop the survivor cleanly: it must have seen no error at all.
            _ = FileManager.default.createFile(atPath: stopFile, contents: nil)
            let (status, output, errors) = survivor.finish(timeout: 10)
            if status != 0 { outcome.problems.append("round \(round): the surviving writer exited with \(status)") }
            if !errors.isEmpty { outcome.problems.append("round \(round): the surviving writer saw errors: \(errors.prefix(500))") }
            if let done = output.split(separator: "\n").last(where: { $0.hasPrefix("done ") }), let writes = Int(done.dropFirst(5)) {
                outcome.writesBySurvivor += writes
            } else {
                outcome.problems.append("round \(round): the surviving writer did not finish: \(output.suffix(200))")
            }

            // Reopen with no other process on the folder: the store is new (this process's last
            // instance is gone), finds itself alone, and reconciles.
            let before = Set((try? FileManager.default.contentsOfDirectory(atPath: folder.path + "/data")) ?? [])
            reader = nil
            let reopened = try DiskCache(configuration: .init(directory: folder))
            reopened.flush() // reconciling done
            let entries = try reopened.entries()
            if reopened.count != entries.count || reopened.totalSize != entries.reduce(0, { $0 + $1.size }) {
                outcome.problems.append("round \(round): count \(reopened.count) and totalSize \(reopened.totalSize) disagree with "
                                        + "the \(entries.count) entries listed (\(entries.reduce(0, { $0 + $1.size })) bytes)")
            }
            for info in entries {
                guard let entry = try reopened.entry(forKey: info.key) else {
                    outcome.problems.append("round \(round): \(info.key) is listed but not served after reopening")
                    continue
                }
                if let problem = replay.check(entry, key: info.key) { outcome.problems.append("round \(round), reopened: \(problem)") }
                outcome.servedAfterReopen += 1
            }
            let files = Set((try? FileManager.default.contentsOfDirectory(atPath: folder.path + "/data")) ?? [])
            let named = Set(entries.compactMap { info -> String? in
                if case .file(let name) = info.storage { return name } else { return nil }
            })
            if files != named {
                outcome.problems.append("round \(round): after reopening, files without rows \(files.subtracting(named).sorted()) "
                                        + "or rows without files \(named.subtracting(files).sorted())")
            }
            outcome.strayFilesRemoved += before.subtracting(files).count
            outcome.rounds += 1
        }
        return outcome
    }

    /// Looks up random keys of the writers' 300 until `deadline`, checking each entry served.
    static func read(_ cache: DiskCache, until deadline: Date, replay: WriterReplay, round: Int, problems: inout [String]) -> Int {
        var served = 0
        var random = SystemRandomNumberGenerator()
        while Date() < deadline {
            let key = "https://images.example.com/\(UInt64.random(in: 0..<300, using: &random)).jpg"
            do {
                guard let entry = try cache.entry(forKey: key) else { continue }
                if let problem = replay.check(entry, key: key) { problems.append("round \(round), while writing: \(problem)") }
                served += 1
            } catch {
                problems.append("round \(round): reading \(key) failed: \(error)")
            }
        }
        return served
    }

    /// A `shashin-dev cache-writer` child, its output and errors gathered as they come.
    final class Writer: @unchecked Sendable {
        let process = Process()
        private let output = Pipe(), errors = Pipe()
        private let gathered = NSLock()
        private var outputText = "", errorText = ""
        private let ready = DispatchSemaphore(value: 0)
        private let closed = DispatchGroup()

        init(_ executable: URL, folder: URL, seed: UInt64, sync: Bool, stopFile: String?) throws {
            process.executableURL = executable
            process.arguments = ["cache-writer", "--dir", folder.path, "--seed", "\(seed)", sync ? "--sync" : "--no-sync", "--keep-going"]
                + (stopFile.map { ["--stop-file", $0] } ?? [])
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            for (pipe, isOutput) in [(output, true), (errors, false)] {
                closed.enter()
                Thread.detachNewThread { [self] in
                    var signalled = false
                    while true {
                        let chunk = pipe.fileHandleForReading.availableData
                        if chunk.isEmpty { break }
                        gathered.withLock {
                            if isOutput { outputText += String(decoding: chunk, as: UTF8.self) } else { errorText += String(decoding: chunk, as: UTF8.self) }
                        }
                        if isOutput && !signalled { signalled = true; ready.signal() }
                    }
                    if isOutput && !signalled { ready.signal() }
                    closed.leave()
                }
            }
        }

        func waitUntilReady() { ready.wait() }

        /// Waits for the process to exit (killing it after `timeout` seconds) and its pipes to close.
        func finish(timeout: Double) -> (status: Int32, output: String, errors: String) {
            let deadline = Date().addingTimeInterval(timeout)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            _ = closed.wait(timeout: .now() + 5)
            return gathered.withLock { (process.terminationStatus, outputText, errorText) }
        }
    }

    /// Replays a writer's generator (`CacheWriterCommand`): which key, size and operation each
    /// version of each seed was, so an entry's metadata says exactly which write it must be.
    final class WriterReplay: @unchecked Sendable { // used from one thread
        private var writes: [UInt64: [(key: Int, size: Int, removal: Bool)]] = [:]
        private var states: [UInt64: UInt64] = [:]

        /// What is wrong with `entry` served for `key`, or `nil`.
        func check(_ entry: DataCacheEntry, key: String) -> String? {
            let text = String(decoding: entry.metadata ?? Data(), as: UTF8.self)
            let fields = text.split(separator: " ").compactMap { Int($0) }
            guard fields.count == 3, fields[0] > 0, (0..<10_000_000).contains(fields[1]) else { return "\(key): metadata \"\(text)\"" }
            let seed = UInt64(fields[0]), version = fields[1], size = fields[2]
            let write = self.write(seed: seed, version: version)
            guard "https://images.example.com/\(write.key).jpg" == key, write.size == size, !write.removal else {
                return "\(key): metadata \"\(text)\" is seed \(seed)'s write \(version), which was key \(write.key), "
                    + "\(write.size) bytes\(write.removal ? ", a removal" : "")"
            }
            guard entry.data.count == size else { return "\(key) (\(text)): \(entry.data.count) bytes" }
            guard entry.data == DiskCacheCrashTests.bytes(seed: seed, version: version, size: size) else {
                return "\(key) (\(text)): the bytes are not the ones written"
            }
            return nil
        }

        private func write(seed: UInt64, version: Int) -> (key: Int, size: Int, removal: Bool) {
            var list = writes[seed] ?? []
            var state = states[seed] ?? seed
            func next() -> UInt64 { // SplitMix64, as the writer's (ShashinToolSupport.SplitMix64)
                state &+= 0x9e37_79b9_7f4a_7c15
                var z = state
                z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
                z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
                return z ^ (z >> 31)
            }
            while list.count <= version {
                let key = Int(next() % 300)
                let size = Int(next() % 200_000) + 100
                list.append((key, size, next() % 16 == 0))
            }
            writes[seed] = list
            states[seed] = state
            return list[version]
        }
    }
}
