import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageServer
import Shashin
import ShashinCore

/// One soak: the embedded server with the catalog's scripted faults, a real pipeline (URLSession
/// loader with a short timeout, memory cache, disk cache in a temporary folder), and `requests`
/// planned requests issued by `concurrency` workers; then the invariants.
struct SoakRun: Sendable {
    struct Options: Sendable {
        var requests = 50_000
        var urls = 3_000
        var images = 240
        var cancelRatio = 0.3
        var concurrency = 64
        /// The loader's `timeoutIntervalForRequest`: a stall ends after this long without a byte.
        var timeout: TimeInterval = 2
        /// Small enough to fill during warm-up, so resident memory is compared with full caches.
        var memoryCacheBytes = 16 << 20
        var diskCacheBytes = 8 << 20
        var maxConcurrentDownloads = 6
        var seed: UInt64 = 1
        /// No request ending for this long means the ones in flight never will.
        var stuckAfter: Duration = .seconds(120)
        /// How long the pipeline may take to drain after the last request ended.
        var drainTimeout: Duration = .seconds(120)
        /// The most resident memory may grow from the end of warm-up to the end, as a fraction.
        var memoryTolerance = 0.10
        /// The share of requests that is warm-up.
        var warmUpShare = 0.10
        var showsProgress = true
    }

    let options: Options

    func run() async throws -> SoakReport {
        // Its handlers answer at once (images are generated first): a short response timeout keeps
        // the per-request timers it leaves behind from piling up over the run.
        let server = ImageServer(responseTimeout: 10)
        try await server.start()
        // Longer than the loader's timeout, so the client gives up first; short, so the server's
        // side of a stalled connection does not linger.
        server.stallLimit = .seconds(options.timeout * 2 + 1)
        let catalog = SoakCatalog(urlCount: options.urls, imageCount: options.images, server: server)
        note("Generating \(catalog.specs.count) images for \(catalog.entries.count) URLs…")
        try await server.generator.pregenerate(catalog.specs)
        catalog.install(on: server)

        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("shashin-soak-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var diskSettings = DiskCache.Configuration(directory: folder)
        diskSettings.sizeLimit = options.diskCacheBytes
        let disk = try DiskCache(configuration: diskSettings)
        let memory = MemoryCache(costLimit: options.memoryCacheBytes)
        let session = URLSessionDataLoader.defaultConfiguration
        session.timeoutIntervalForRequest = options.timeout
        var configuration = ImagePipeline.Configuration()
        configuration.dataLoader = URLSessionDataLoader(configuration: session)
        configuration.memoryCache = memory
        configuration.diskCache = disk
        configuration.diskCachePolicy = .all
        configuration.maxConcurrentDownloads = options.maxConcurrentDownloads
        let pipeline = ImagePipeline(configuration: configuration)

        let warmUpCount = max(1, Int(Double(options.requests) * options.warmUpShare))
        let plans = SoakRequestPlan.make(count: options.requests, catalog: catalog, cancelRatio: options.cancelRatio,
                                         coveringEveryURLWithin: warmUpCount, seed: options.seed)
        let tally = SoakTally(requests: plans.count)
        let samples = Locked(Samples())
        let next = Locked(0)
        let progress = ProgressLine(label: "soak", total: plans.count, enabled: options.showsProgress)
        let decile = max(1, plans.count / 10)

        note("Soaking: \(plans.count) requests over \(catalog.entries.count) URLs, \(options.concurrency) at a time…")
        let start = ContinuousClock.now
        let watchdog = Task { await Self.watch(tally, stuckAfter: options.stuckAfter) }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<max(1, options.concurrency) {
                group.addTask {
                    while let plan = next.withLock({ index -> SoakRequestPlan? in
                        guard index < plans.count else { return nil }
                        defer { index += 1 }
                        return plans[index]
                    }) {
                        let outcome = await Self.perform(plan, pipeline: pipeline, tally: tally)
                        let ended = tally.end(plan, outcome.outcome, fromMemory: outcome.fromMemory)
                        progress.advance(failed: outcome.outcome.category == "error")
                        if ended == warmUpCount || ended % decile == 0 {
                            let rss = ResidentMemory.now()
                            var trimmed: ResidentMemory?
                            if ended == warmUpCount, ResidentMemory.trimHeap() { trimmed = ResidentMemory.now() }
                            samples.withLock { samples in
                                if ended == warmUpCount {
                                    samples.warmUp = rss
                                    samples.warmUpTrimmed = trimmed
                                    samples.memoryCacheCostAtWarmUp = memory.totalCost
                                    samples.diskCacheSizeAtWarmUp = disk.totalSize
                                }
                                if ended % decile == 0 { samples.byDecile[ended / decile] = rss }
                            }
                        }
                    }
                }
            }
        }
        let elapsed = start.duration(to: .now)
        watchdog.cancel()
        progress.finish()

        // Every task has ended; what they started (downloads going on for no one, disk writes of
        // processed results, background refreshes) must wind down too.
        note("Draining…")
        let drainStart = ContinuousClock.now
        while !(pipeline.activeTaskCount == 0 && pipeline.backgroundWorkCount == 0 && pipeline.workCounts.isDrained),
              drainStart.duration(to: .now) < options.drainTimeout {
            try? await Task.sleep(for: .milliseconds(20))
        }
        let drainSeconds = Self.seconds(drainStart.duration(to: .now))
        let work = pipeline.workCounts
        let after = SoakReport.PipelineAfter(activeTasks: pipeline.activeTaskCount, backgroundWork: pipeline.backgroundWorkCount,
                                             jobs: work.jobs, queued: work.queued, running: work.running,
                                             drainSeconds: drainSeconds)
        let endMemory = ResidentMemory.now()
        let endTrimmed = ResidentMemory.trimHeap() ? ResidentMemory.now() : nil
        let memoryCacheCostAtEnd = memory.totalCost

        note("Checking the disk cache…")
        let audit = try await SoakDiskAudit.run(cache: disk, catalog: catalog, generator: server.generator,
                                                decoder: configuration.decoder)
        let serverTotals = SoakReport.Server(requests: server.totalRequests, bytesSent: server.bytesSent,
                                             requestsByRouteKind: Dictionary(uniqueKeysWithValues: catalog.requestsByKind.map { ($0.key.rawValue, $0.value) }),
                                             faultsInjected: Dictionary(uniqueKeysWithValues: SoakFault.allCases.map { ($0.rawValue, catalog.faultsInjected[$0] ?? 0) }))
        await server.stop()

        let sampled = samples.current
        return SoakReport.make(options: options, catalog: catalog, tally: tally.state.current, seconds: Self.seconds(elapsed),
                               server: serverTotals, after: after, audit: audit,
                               memory: SoakReport.Memory(warmUp: sampled.warmUp, end: endMemory,
                                                         warmUpTrimmed: sampled.warmUpTrimmed, endTrimmed: endTrimmed,
                                                         byDecile: sampled.byDecile,
                                                         memoryCacheLimit: options.memoryCacheBytes,
                                                         memoryCacheCostAtWarmUp: sampled.memoryCacheCostAtWarmUp,
                                                         memoryCacheCostAtEnd: memoryCacheCostAtEnd,
                                                         diskCacheSizeAtWarmUp: sampled.diskCacheSizeAtWarmUp,
                                                         tolerance: options.memoryTolerance),
                               diskCacheLimit: options.diskCacheBytes, diskCacheSizeAtEnd: disk.totalSize)
    }

    /// Resident memory as the run went.
    struct Samples: Sendable {
        var warmUp: ResidentMemory?
        var warmUpTrimmed: ResidentMemory?
        var memoryCacheCostAtWarmUp = 0
        var diskCacheSizeAtWarmUp = 0
        var byDecile: [Int: ResidentMemory] = [:]
    }

    // MARK: - One request

    /// Issues `plan`, cancels and re-prioritises it as planned, and checks what it delivered.
    private static func perform(_ plan: SoakRequestPlan, pipeline: ImagePipeline,
                                tally: SoakTally) async -> (outcome: SoakOutcome, fromMemory: Bool) {
        tally.begin(plan)
        let request = plan.request
        let task: ImageTask
        switch pipeline.loadImage(request) {
        case .cached(let response):
            check(response, of: plan, tally: tally)
            return (.image("memory"), true)
        case .inProgress(let inProgress):
            task = inProgress
        }
        tally.attach(task, to: plan)
        let started = ContinuousClock.now

        // Every `finished` event the task sends: there must be exactly one.
        let finishedEvents = Task { () -> [SoakOutcome] in
            var finished: [SoakOutcome] = []
            for await event in task.events {
                if case .finished(let result) = event { finished.append(SoakOutcome(result)) }
            }
            return finished
        }
        let waiter = Task { () -> Result<ImageResponse, any Error> in
            do { return .success(try await task.response) } catch { return .failure(error) }
        }
        if let cancel = plan.cancel, cancel.after == .zero {
            tally.countCancel()
            switch cancel.style {
            case .task: task.cancel()
            case .awaitingTask: waiter.cancel()
            }
        }
        let actions = Task {
            var timeline: [(after: Duration, action: @Sendable () -> Void)] = plan.priorityChanges.map { change in
                (change.after, { tally.countPriorityChange(); task.priority = change.to })
            }
            if let cancel = plan.cancel, cancel.after > .zero {
                timeline.append((cancel.after, {
                    tally.countCancel()
                    switch cancel.style {
                    case .task: task.cancel()
                    case .awaitingTask: waiter.cancel()
                    }
                }))
            }
            for (after, action) in timeline.sorted(by: { $0.after < $1.after }) {
                // The moment is random on purpose; nothing waits on it for correctness.
                do { try await Task.sleep(until: started + after, clock: .continuous) } catch { return }
                action()
            }
        }

        let result = await waiter.value
        actions.cancel()
        let finished = await finishedEvents.value
        let outcome = SoakOutcome(result)

        if finished.count != 1 {
            tally.violation("request \(plan.ordinal) (\(plan.entry.path)): task \(task.id) sent \(finished.count) finished events")
        } else if finished[0] != outcome {
            tally.violation("request \(plan.ordinal) (\(plan.entry.path)): task \(task.id) was awaited as \(outcome.label) "
                + "but its finished event says \(finished[0].label)")
        }
        if !task.isFinished {
            tally.violation("request \(plan.ordinal) (\(plan.entry.path)): task \(task.id) returned a result but is not finished")
        }
        if outcome == .cancelled, plan.cancel == nil, !tally.wasAbandoned(plan) {
            tally.violation("request \(plan.ordinal) (\(plan.entry.path)): task \(task.id) was cancelled though nobody cancelled it")
        }
        if case .success(let response) = result { check(response, of: plan, tally: tally) }
        return (outcome, false)
    }

    /// An image must come only from a URL that serves one, in the size the request asked for.
    private static func check(_ response: ImageResponse, of plan: SoakRequestPlan, tally: SoakTally) {
        let entry = plan.entry
        guard entry.kind.mayServeImage else {
            tally.violation("request \(plan.ordinal) (\(entry.path)): an image (\(response.loadedFrom)) from a URL that never sends one")
            return
        }
        let (width, height) = (response.image.pixelWidth, response.image.pixelHeight)
        switch plan.variant {
        case .original:
            if width != entry.spec.width || height != entry.spec.height {
                tally.violation("request \(plan.ordinal) (\(entry.path)): \(width)×\(height) image, expected "
                    + "\(entry.spec.width)×\(entry.spec.height) (\(response.loadedFrom))")
            }
        case .thumbnail:
            if max(width, height) > SoakRequestPlan.thumbnail.maxPixelSize || min(width, height) < 1 {
                tally.violation("request \(plan.ordinal) (\(entry.path)): \(width)×\(height) thumbnail, expected at most "
                    + "\(SoakRequestPlan.thumbnail.maxPixelSize) px (\(response.loadedFrom))")
            }
        case .processed:
            if width < 1 || height < 1 || max(width, height) > max(entry.spec.width, entry.spec.height) {
                tally.violation("request \(plan.ordinal) (\(entry.path)): processed image of \(width)×\(height)")
            }
        }
    }

    // MARK: - Watchdog

    /// Reports and cancels the requests in flight whenever none has ended for `stuckAfter`.
    private static func watch(_ tally: SoakTally, stuckAfter: Duration) async {
        var lastEnded = -1
        var lastChange = ContinuousClock.now
        while !Task.isCancelled {
            do { try await Task.sleep(for: .seconds(1)) } catch { return }
            let ended = tally.ended
            if ended != lastEnded {
                lastEnded = ended
                lastChange = .now
            } else if lastChange.duration(to: .now) > stuckAfter {
                let abandoned = tally.abandonInFlight(stalledFor: stuckAfter)
                if abandoned > 0 { writeNote("No request ended for \(stuckAfter): \(abandoned) abandoned (a violation).") }
                lastChange = .now
            }
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// A line on standard error.
private func writeNote(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

extension SoakRun {
    /// A progress line on standard error, unless the run is quiet.
    fileprivate func note(_ text: String) {
        if options.showsProgress { writeNote(text) }
    }
}
