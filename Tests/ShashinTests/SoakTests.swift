import Foundation
import Testing

/// The short soak: `shashin-dev soak` with fewer requests and URLs, run as a process next to this
/// test bundle, against its embedded server's scheduled faults. It asserts the tool's own
/// invariants (exit status and report) and that the run really exercised what it claims: every
/// fault kind injected, every way of ending seen, originals checked on disk.
///
/// A process, not in-process code: the soak lives in the developer tool `shashin-dev`, which
/// tests cannot import, and its resident-memory check needs a process of its own.
@Suite("Soak under faults")
struct SoakTests {
    /// Enough requests that every fault kind comes up dozens of times and both caches (4 MB each
    /// here) fill during warm-up; few enough for about a minute in a debug build. Warm-up is the
    /// first 30%, not 10%: glibc's per-thread arenas take a few thousand requests to settle
    /// whatever the run's length (the full soak's 10% is 5,000 requests).
    static let arguments = ["soak", "--requests", "20000", "--urls", "800", "--images", "80",
                            "--memory-cache-mb", "4", "--disk-cache-mb", "4", "--warm-up", "0.3", "--json", "--quiet"]

    @Test func aShortSoakEndsEveryTaskOnceDrainsTheQueuesHoldsMemoryAndStoresOnlyWhatTheServerSent() async throws {
        // Waiting on the process blocks: on a thread of its own, not the Swift pool.
        let (process, data) = try await offThePool { () throws -> (Process, Data) in
            let process = Process()
            process.executableURL = try DiskCacheCrashTests.executable("shashin-dev")
            process.arguments = Self.arguments
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process, data)
        }

        let report = try JSONDecoder().decode(Report.self, from: data)
        #expect(report.violations.isEmpty, "\(report.violations)")
        #expect(report.violationCount == 0)
        #expect(process.terminationStatus == 0)

        // Every request ended, once, in one of three ways, and each way happened.
        #expect(report.requestsEnded == report.requests)
        #expect(report.outcomes.values.reduce(0, +) == report.requests)
        for way in ["image", "error", "cancelled"] { #expect((report.outcomes[way] ?? 0) > 0, "no request ended as \(way)") }
        #expect(report.cancelsRequested > 0 && report.priorityChanges > 0)

        // Every fault kind was injected, and each faulty kind of URL ended in an error at least once.
        for (fault, count) in report.server.faultsInjected { #expect(count > 0, "no \(fault) injected") }
        for kind in ["status500", "dropMidBody", "shortBody", "stall", "invalidBytes", "notModified"] {
            let errors = report.outcomesByRouteKind[kind, default: [:]].filter { $0.key.hasPrefix("error/") }
            #expect(!errors.isEmpty, "no request to a \(kind) URL failed")
        }

        // Drained: no task, job, queued or running work, background work.
        let after = report.pipelineAfter
        let leftOver: [Int] = [after.activeTasks, after.backgroundWork, after.jobs, after.queued, after.running]
        #expect(leftOver == [0, 0, 0, 0, 0], "active tasks, background work, jobs, queued, running")

        // Memory was measured with a full memory cache, and held.
        #expect(report.memory.memoryCacheCostAtWarmUp * 10 >= report.memory.memoryCacheLimit * 9,
                "the memory cache was not full after warm-up")
        // VmRSS after malloc_trim, as the tool compares it (see RELIABILITY.md).
        let warmUp = try #require(report.memory.warmUpTrimmed?.resident)
        let end = try #require(report.memory.endTrimmed?.resident)
        #expect(Double(end) <= Double(warmUp) * 1.10, "resident memory \(warmUp) → \(end)")

        // The disk cache held originals and processed results, all as the server sent them.
        #expect(report.disk.originalsChecked > 0 && report.disk.processedChecked > 0)
        #expect(report.disk.problems.isEmpty, "\(report.disk.problems)")
    }

    /// The parts of `shashin-dev soak --json` this test reads.
    struct Report: Decodable {
        struct Server: Decodable { var faultsInjected: [String: Int] }
        struct PipelineAfter: Decodable { var activeTasks, backgroundWork, jobs, queued, running: Int }
        struct Memory: Decodable {
            struct Sample: Decodable { var resident: Int }
            var warmUpTrimmed: Sample?
            var endTrimmed: Sample?
            var memoryCacheLimit: Int
            var memoryCacheCostAtWarmUp: Int
        }
        struct Disk: Decodable { var originalsChecked, processedChecked: Int; var problems: [String] }

        var requests: Int
        var requestsEnded: Int
        var outcomes: [String: Int]
        var outcomesByRouteKind: [String: [String: Int]]
        var cancelsRequested: Int
        var priorityChanges: Int
        var server: Server
        var pipelineAfter: PipelineAfter
        var memory: Memory
        var disk: Disk
        var violationCount: Int
        var violations: [String]
    }
}
