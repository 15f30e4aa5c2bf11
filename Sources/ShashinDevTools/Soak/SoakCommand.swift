import ArgumentParser
import Foundation
import ShashinToolSupport

/// `shashin-dev soak`: many requests through a real pipeline against the embedded server, which
/// injects faults on a schedule; exits non-zero when an invariant breaks.
///
/// Invariants: every request ends exactly once (image, error or cancellation); the pipeline's
/// task count, background work, jobs and queues return to zero; resident memory at the end is
/// within `--memory-tolerance` of what it was after warm-up; every disk-cache entry is what the
/// server sent. See RELIABILITY.md.
struct SoakCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "Load many images through the pipeline while the server injects faults; check nothing leaks or breaks."
    )

    @Option(help: "Requests in the run.")
    var requests = 50_000

    @Option(help: "Distinct URLs.")
    var urls = 3_000

    @Option(help: "Distinct generated images behind the URLs.")
    var images = 240

    @Option(help: "Share of requests cancelled at a random moment.")
    var cancelRatio = 0.3

    @Option(help: "Requests in flight at once.")
    var concurrency = 64

    @Option(help: "The loader's timeout without a byte, in seconds (stalls last longer).")
    var timeout = 2.0

    @Option(help: "Memory cache limit in MB (small, so it fills during warm-up).")
    var memoryCacheMB = 16

    @Option(help: "Disk cache limit in MB (small, so it fills during warm-up and evicts from then on).")
    var diskCacheMB = 8

    @OptionGroup var downloads: DownloadsOption

    @Option(help: "Seed of the request plan.")
    var seed: UInt64 = 1

    @Option(help: "The most resident memory may grow from warm-up to the end, as a fraction.")
    var memoryTolerance = 0.10

    @Option(help: "Share of the requests that is warm-up: memory is compared from its end. Default: 10%, and at least 3,000 requests (up to 30%) for short runs, whose allocator is still settling.")
    var warmUp: Double?

    /// At 10,000 requests a 10% warm-up ends before glibc's arenas settle (+12% measured): short
    /// runs warm up for 3,000 requests, up to 30% of the run.
    var warmUpShare: Double { warmUp ?? min(0.30, max(0.10, 3_000 / Double(requests))) }

    @Option(help: "Seconds without any request ending before those in flight count as never ending.")
    var stuckAfter = 120

    @OptionGroup var output: JSONOutputOption

    @Flag(help: "No progress lines on standard error.")
    var quiet = false

    func validate() throws {
        guard requests > 0, urls > 0, images > 0, concurrency > 0 else { throw ValidationError("counts must be positive") }
        guard (0...1).contains(cancelRatio) else { throw ValidationError("--cancel-ratio must be between 0 and 1") }
        guard warmUpShare > 0, warmUpShare < 1 else { throw ValidationError("--warm-up must be between 0 and 1") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
    }

    func run() async throws {
        var options = SoakRun.Options()
        options.requests = requests
        options.urls = urls
        options.images = images
        options.cancelRatio = cancelRatio
        options.concurrency = concurrency
        options.timeout = timeout
        options.memoryCacheBytes = memoryCacheMB << 20
        options.diskCacheBytes = diskCacheMB << 20
        options.maxConcurrentDownloads = downloads.maxConcurrentDownloads
        options.seed = seed
        options.memoryTolerance = memoryTolerance
        options.warmUpShare = warmUpShare
        options.stuckAfter = .seconds(stuckAfter)
        options.showsProgress = !quiet
        let report = try await SoakRun(options: options).run()
        print(output.json ? report.json : report.text)
        if !report.passed { throw ExitCode(1) }
    }
}
