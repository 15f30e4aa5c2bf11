import Foundation
import ShashinCore

/// What a soak did and which invariants held, as text for people or JSON for tests and CI.
struct SoakReport: Codable, Sendable {
    struct Server: Codable, Sendable {
        var requests: Int
        var bytesSent: Int
        var requestsByRouteKind: [String: Int]
        var faultsInjected: [String: Int]
    }

    struct PipelineAfter: Codable, Sendable {
        var activeTasks: Int
        var backgroundWork: Int
        var jobs: Int
        var queued: Int
        var running: Int
        var drainSeconds: Double
    }

    /// Resident memory (VmRSS) right after the warm-up requests ended and after the pipeline
    /// drained at the end, each read twice: as the process held it, then after `malloc_trim(0)`
    /// gave glibc's free pages back. The invariant is on the second reading (live memory and its
    /// fragmentation; pages glibc keeps from the busiest moment are not a leak); both are reported.
    /// `byDecile[n]`: after n tenths of the requests, untrimmed.
    struct Memory: Codable, Sendable {
        var warmUp: ResidentMemory?
        var end: ResidentMemory?
        var warmUpTrimmed: ResidentMemory?
        var endTrimmed: ResidentMemory?
        var byDecile: [Int: ResidentMemory]
        var memoryCacheLimit: Int
        var memoryCacheCostAtWarmUp: Int
        var memoryCacheCostAtEnd: Int
        var diskCacheSizeAtWarmUp: Int
        var tolerance: Double

        /// End ÷ warm-up − 1, after trimming (untrimmed where trimming is not possible).
        var growth: Double? {
            Self.growth(from: warmUpTrimmed ?? warmUp, to: endTrimmed ?? end)
        }

        /// End ÷ warm-up − 1, untrimmed.
        var untrimmedGrowth: Double? { Self.growth(from: warmUp, to: end) }

        static func growth(from start: ResidentMemory?, to end: ResidentMemory?) -> Double? {
            guard let start, let end, start.resident > 0 else { return nil }
            return Double(end.resident) / Double(start.resident) - 1
        }
    }

    var requests: Int
    var urls: Int
    var images: Int
    var seed: UInt64
    var concurrency: Int
    var cancelRatio: Double
    var timeoutSeconds: Double
    var maxConcurrentDownloads: Int
    var seconds: Double
    var requestsPerSecond: Double
    /// `image`, `error`, `cancelled` over all requests.
    var outcomes: [String: Int]
    /// `image/network`, `error/http 500`, … over all requests.
    var outcomeDetails: [String: Int]
    /// Route kind → outcome detail → requests.
    var outcomesByRouteKind: [String: [String: Int]]
    /// Variant (original, thumbnail, processed) → outcome → requests.
    var outcomesByVariant: [String: [String: Int]]
    var requestsEnded: Int
    var tasksStarted: Int
    var memoryHits: Int
    var cancelsRequested: Int
    var priorityChanges: Int
    var server: Server
    var pipelineAfter: PipelineAfter
    var memory: Memory
    var disk: SoakDiskAudit
    var diskCacheLimit: Int
    var diskCacheSizeAtEnd: Int
    var violationCount: Int
    var violations: [String]

    var passed: Bool { violationCount == 0 }

    static func make(options: SoakRun.Options, catalog: SoakCatalog, tally: SoakTally.State, seconds: Double,
                     server: Server, after: PipelineAfter, audit: SoakDiskAudit, memory: Memory,
                     diskCacheLimit: Int, diskCacheSizeAtEnd: Int) -> SoakReport {
        var violations = tally.violations
        var count = tally.violationCount
        func violation(_ text: String) {
            count += 1
            violations.append(text)
        }
        if tally.ended != options.requests {
            violation("\(tally.ended) requests ended, \(options.requests) were issued")
        }
        let unended = (0..<options.requests).filter { tally.endedByOrdinal[$0] == 0 }
        if !unended.isEmpty { violation("\(unended.count) requests never ended, the first: \(unended.prefix(5))") }
        if after.activeTasks != 0 { violation("pipeline.activeTaskCount is \(after.activeTasks) after the run, not 0") }
        if after.backgroundWork != 0 { violation("pipeline.backgroundWorkCount is \(after.backgroundWork) after the run, not 0") }
        if after.jobs != 0 || after.queued != 0 || after.running != 0 {
            violation("the pipeline did not drain: \(after.jobs) jobs, \(after.queued) queued, \(after.running) running")
        }
        if let growth = memory.growth, growth > memory.tolerance {
            violation(String(format: "resident memory (after malloc_trim) grew %.1f%% from warm-up to the end (limit %.0f%%)",
                             growth * 100, memory.tolerance * 100))
        } else if memory.growth == nil, ResidentMemory.now() != nil {
            violation("resident memory was not sampled after warm-up")
        }
        for problem in audit.problems { violation("disk cache: \(problem)") }

        var outcomes: [String: Int] = [:]
        var details: [String: Int] = [:]
        for (_, labels) in tally.outcomes {
            for (label, n) in labels {
                details[label, default: 0] += n
                outcomes[String(label.prefix { $0 != "/" }), default: 0] += n
            }
        }
        return SoakReport(
            requests: options.requests, urls: catalog.entries.count, images: catalog.specs.count, seed: options.seed,
            concurrency: options.concurrency, cancelRatio: options.cancelRatio, timeoutSeconds: options.timeout,
            maxConcurrentDownloads: options.maxConcurrentDownloads,
            seconds: seconds, requestsPerSecond: seconds > 0 ? Double(tally.ended) / seconds : 0,
            outcomes: outcomes, outcomeDetails: details,
            outcomesByRouteKind: Dictionary(uniqueKeysWithValues: tally.outcomes.map { ($0.key.rawValue, $0.value) }),
            outcomesByVariant: tally.variants,
            requestsEnded: tally.ended, tasksStarted: tally.tasksStarted, memoryHits: tally.memoryHits,
            cancelsRequested: tally.cancelsRequested, priorityChanges: tally.priorityChanges,
            server: server, pipelineAfter: after, memory: memory, disk: audit,
            diskCacheLimit: diskCacheLimit, diskCacheSizeAtEnd: diskCacheSizeAtEnd,
            violationCount: count, violations: violations
        )
    }

    // MARK: - Output

    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    var text: String {
        var lines: [String] = []
        func megabytes(_ bytes: Int?) -> String { bytes.map { String(format: "%.1f MB", Double($0) / 1_048_576) } ?? "n/a" }
        lines.append("Soak under faults: \(requests) requests over \(urls) URLs (\(images) images), \(concurrency) at a time, "
            + "seed \(seed), timeout \(String(format: "%.1f", timeoutSeconds)) s, \(maxConcurrentDownloads) downloads at once")
        lines.append(String(format: "  %.1f s, %.0f requests/s", seconds, requestsPerSecond))
        lines.append("  ended: \(requestsEnded) — image \(outcomes["image"] ?? 0), error \(outcomes["error"] ?? 0), "
            + "cancelled \(outcomes["cancelled"] ?? 0); \(memoryHits) memory hits without a task, \(tasksStarted) tasks")
        lines.append("  cancels requested \(cancelsRequested), priority changes \(priorityChanges)")
        lines.append("")
        lines.append("  faults injected by the server (\(server.requests) requests, \(megabytes(server.bytesSent)) sent):")
        for fault in SoakFault.allCases {
            lines.append("    \(fault.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0)) \(server.faultsInjected[fault.rawValue] ?? 0)")
        }
        lines.append("")
        lines.append("  outcomes by route kind:")
        for kind in SoakRouteKind.allCases {
            guard let labels = outcomesByRouteKind[kind.rawValue] else { continue }
            let total = labels.values.reduce(0, +)
            let parts = labels.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            lines.append("    \(kind.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0)) \(total): \(parts)")
        }
        lines.append("")
        lines.append("  pipeline after: activeTaskCount \(pipelineAfter.activeTasks), backgroundWorkCount \(pipelineAfter.backgroundWork), "
            + "jobs \(pipelineAfter.jobs), queued \(pipelineAfter.queued), running \(pipelineAfter.running) "
            + String(format: "(drained in %.2f s)", pipelineAfter.drainSeconds))
        func percent(_ value: Double?) -> String { value.map { String(format: "%+.1f%%", $0 * 100) } ?? "n/a" }
        lines.append("  resident memory (VmRSS after malloc_trim): \(megabytes(memory.warmUpTrimmed?.resident)) after warm-up, "
            + "\(megabytes(memory.endTrimmed?.resident)) at the end (\(percent(memory.growth)), limit +\(Int(memory.tolerance * 100))%)")
        lines.append("    untrimmed VmRSS: \(megabytes(memory.warmUp?.resident)) → \(megabytes(memory.end?.resident)) "
            + "(\(percent(memory.untrimmedGrowth))), peak \(megabytes(memory.end?.peak))")
        lines.append("    anonymous \(megabytes(memory.warmUp?.anonymous)) → \(megabytes(memory.end?.anonymous)), "
            + "file-backed \(megabytes(memory.warmUp?.fileBacked)) → \(megabytes(memory.end?.fileBacked)), "
            + "malloc in use \(megabytes(memory.warmUp?.mallocInUse)) → \(megabytes(memory.end?.mallocInUse)), "
            + "threads \(memory.warmUp?.threads.map(String.init) ?? "n/a") → \(memory.end?.threads.map(String.init) ?? "n/a")")
        let tenths = memory.byDecile.sorted { $0.key < $1.key }.map(\.value)
        lines.append("    by tenth of the run: " + tenths.map { megabytes($0.resident) }.joined(separator: ", "))
        lines.append("    malloc in use:       " + tenths.map { megabytes($0.mallocInUse) }.joined(separator: ", "))
        lines.append("    memory cache: \(megabytes(memory.memoryCacheCostAtWarmUp)) after warm-up, \(megabytes(memory.memoryCacheCostAtEnd)) at the end, "
            + "limit \(megabytes(memory.memoryCacheLimit)); disk cache: \(megabytes(memory.diskCacheSizeAtWarmUp)) after warm-up, "
            + "\(megabytes(diskCacheSizeAtEnd)) at the end, limit \(megabytes(diskCacheLimit))")
        lines.append("  disk cache: \(disk.entries) entries (\(megabytes(disk.bytes))), \(disk.originalsChecked) originals compared by SHA-256 "
            + "with the server's bytes, \(disk.processedChecked) processed results decoded")
        lines.append("")
        if passed {
            lines.append("  violations: none")
        } else {
            lines.append("  VIOLATIONS: \(violationCount)")
            for violation in violations.prefix(50) { lines.append("    - \(violation)") }
        }
        return lines.joined(separator: "\n")
    }
}
