import Foundation
import Testing
@testable import ShashinCore

/// A pressure source a test drives: each `signal` ends one `wait()`.
final class ScriptedPressureSource: MemoryPressureSource {
    let trigger = ScriptedPressureTrigger()
    let armError: MemoryPressureUnavailable?
    let armCount = Locked(0)
    init(armError: MemoryPressureUnavailable? = nil) { self.armError = armError }

    func arm() throws -> any MemoryPressureTrigger {
        armCount.withLock { $0 += 1 }
        if let armError { throw armError }
        return trigger
    }
}

final class ScriptedPressureTrigger: MemoryPressureTrigger {
    struct State {
        var pending: [MemoryPressureWait] = []
        var cancelled = false
        var waiting = 0
        var log: [String] = []     // "wait", "returned <result>", "cancel", "close", in order
    }
    let state = Locked(State())
    private let wakeUps = DispatchSemaphore(value: 0)

    func signal(_ result: MemoryPressureWait) {
        state.withLock { $0.pending.append(result) }
        wakeUps.signal()
    }

    func wait() -> MemoryPressureWait {
        state.withLock { $0.waiting += 1; $0.log.append("wait") }
        while true {
            let result: MemoryPressureWait? = state.withLock { state in
                if state.cancelled { return .cancelled }
                return state.pending.isEmpty ? nil : state.pending.removeFirst()
            }
            if let result {
                state.withLock { $0.waiting -= 1; $0.log.append("returned \(result)") }
                return result
            }
            wakeUps.wait()
        }
    }

    func cancel() {
        state.withLock { $0.cancelled = true; $0.log.append("cancel") }
        wakeUps.signal()
    }

    func close() { state.withLock { $0.log.append("close") } }

    /// Waits until the monitor's thread is inside `wait()`.
    func untilWaiting() async throws {
        try await eventually { self.state.withLock { $0.waiting == 1 } }
    }
}

@Suite("Memory pressure monitor")
struct MemoryPressureMonitorTests {
    func key(_ name: String) -> ImageCacheKey { ImageCacheKey(url: "https://example.com/\(name)") }

    func filledCache() -> MemoryCache {
        let cache = MemoryCache(costLimit: 100_000)
        for i in 0..<10 { cache.store(TestImages.makeImage(width: 10, height: 10), forKey: key("\(i)")) }
        return cache
    }

    @Test func pressureFromTheSourceTrimsTheCacheAndIsReported() async throws {
        let cache = filledCache()
        let source = ScriptedPressureSource()
        let lines = Locked<[String]>([])
        let monitor = MemoryPressureMonitor(cache: cache, level: .fraction(0.5), source: source,
                                            log: { line in lines.withLock { $0.append(line) } })
        var trims = cache.trims.makeAsyncIterator()
        #expect(monitor.start())
        #expect(monitor.isRunning)

        source.trigger.signal(.pressure)
        let first = await trims.next()
        #expect(first == MemoryTrim(level: .fraction(0.5), reason: .pressure,
                                    costBefore: 4_000, costAfter: 2_000, countBefore: 10, countAfter: 5))
        source.trigger.signal(.pressure)
        #expect(await trims.next()?.costAfter == 800)          // 1,000 asked: two images of 400 fit
        #expect(cache.totalCount == 2)
        #expect(monitor.pressureEventCount == 2)

        monitor.stop()
        #expect(lines.current.isEmpty)
        #expect(source.armCount.current == 1)
    }

    @Test func aMonitorOnAPipelineTrimsItsMemoryCache() async throws {
        let fixture = PipelineFixture()
        for i in 0..<10 { fixture.cache.store(TestImages.makeImage(width: 10, height: 10), forKey: key("\(i)")) }
        let source = ScriptedPressureSource()
        let monitor = MemoryPressureMonitor(pipeline: fixture.pipeline, level: .all, source: source, log: { _ in })
        var trims = fixture.cache.trims.makeAsyncIterator()
        monitor.start()
        source.trigger.signal(.pressure)
        let trim = await trims.next()
        #expect(trim?.reason == .pressure && trim?.level == .all)
        #expect(fixture.cache.totalCount == 0)
        monitor.stop()
    }

    @Test func stopWakesTheThreadWaitsForItAndThenClosesTheTrigger() async throws {
        let source = ScriptedPressureSource()
        let monitor = MemoryPressureMonitor(cache: filledCache(), source: source, log: { _ in })
        monitor.start()
        try await source.trigger.untilWaiting()

        monitor.stop()
        // When stop returns the thread has left `wait()` for good, and only then was the trigger closed.
        #expect(source.trigger.state.current.log == ["wait", "cancel", "returned cancelled", "close"])
        #expect(source.trigger.state.current.waiting == 0)
        #expect(!monitor.isRunning)

        monitor.stop()                                   // a second stop does nothing
        #expect(monitor.start() == false)                // nor does starting a stopped monitor
        #expect(source.trigger.state.current.log.count == 4)
        #expect(source.armCount.current == 1)
    }

    @Test func whereThePressureSourceIsMissingItLogsOneLineAndDoesNothingElse() async throws {
        let cache = filledCache()
        let source = ScriptedPressureSource(armError: MemoryPressureUnavailable("cannot open /proc/pressure/memory: No such file or directory"))
        let lines = Locked<[String]>([])
        let monitor = MemoryPressureMonitor(cache: cache, source: source, log: { line in lines.withLock { $0.append(line) } })

        #expect(monitor.start() == false)
        #expect(monitor.start() == false)               // a second start neither retries nor logs again
        #expect(lines.current == ["shashin: memory-pressure monitor off: cannot open /proc/pressure/memory: No such file or directory"])
        #expect(monitor.unavailableReason == "cannot open /proc/pressure/memory: No such file or directory")
        #expect(!monitor.isRunning)
        #expect(source.armCount.current == 1)
        #expect(cache.totalCount == 10)
        monitor.stop()
        #expect(source.trigger.state.current.log.isEmpty) // no thread ever waited
    }

    @Test func aFailingTriggerEndsTheThreadWithOneLine() async throws {
        let source = ScriptedPressureSource()
        let lines = Locked<[String]>([])
        let monitor = MemoryPressureMonitor(cache: filledCache(), source: source,
                                            log: { line in lines.withLock { $0.append(line) } })
        monitor.start()
        source.trigger.signal(.failed("the PSI file reported an error"))
        try await eventually { !monitor.isRunning }
        #expect(lines.current == ["shashin: memory-pressure monitor stopped: the PSI file reported an error"])
        monitor.stop()
        #expect(source.trigger.state.current.log.last == "close")
    }

    @Test func releasingAMonitorStopsIt() async throws {
        let source = ScriptedPressureSource()
        var monitor: MemoryPressureMonitor? = MemoryPressureMonitor(cache: filledCache(), source: source, log: { _ in })
        monitor?.start()
        try await source.trigger.untilWaiting()
        monitor = nil
        #expect(source.trigger.state.current.log.suffix(2) == ["returned cancelled", "close"])
    }
}
