#if os(Linux)
import Foundation
import Glibc
import Testing
@testable import ShashinCore

/// Triggers armed on this machine's real PSI file. Serialized: the tests look for their monitor's
/// thread and their descriptors by name in /proc/self.
@Suite("PSI memory pressure", .serialized)
struct PSIMemoryPressureSourceTests {
    static let path = "/proc/pressure/memory"

    /// Why a trigger cannot be armed here (no PSI, or refused), or `nil` when one can.
    static let armingProblem: String? = {
        do {
            try PSIMemoryPressureSource(path: path).arm().close()
            return nil
        } catch {
            return String(describing: error)
        }
    }()
    static let canArm = Comment(rawValue: "skipped: cannot arm a PSI trigger on this machine: \(armingProblem ?? "")")

    /// What /proc/self/fd/`fd` points at, or `nil` when the descriptor is not open.
    func target(ofDescriptor fd: Int32) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")
    }

    /// The names of this process's threads.
    func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    @Test(.enabled(if: armingProblem == nil, canArm))
    func aRealTriggerIsArmedWaitedOnAndCancelled() throws {
        let armed = try PSIMemoryPressureSource(path: Self.path).arm()
        let trigger = try #require(armed as? PSITrigger)
        #expect(target(ofDescriptor: trigger.pressureFD) == Self.path)
        let pipe = target(ofDescriptor: trigger.wakeRead)
        #expect(pipe?.hasPrefix("pipe:") == true)

        trigger.cancel()
        #expect(trigger.wait() == .cancelled)
        #expect(trigger.wait() == .cancelled)        // cancelled for good
        trigger.close()
        trigger.cancel()                             // after close: writes to nothing
        #expect(trigger.isClosed)
        #expect(target(ofDescriptor: trigger.pressureFD) != Self.path)
        #expect(target(ofDescriptor: trigger.wakeRead) != pipe)
    }

    @Test(.enabled(if: armingProblem == nil, canArm))
    func aMonitorOnRealPSIRunsItsOwnThreadAndStopEndsIt() async throws {
        let name = "psi-test-\(Int.random(in: 1000...9999))"
        let monitor = MemoryPressureMonitor(level: .fraction(0.5), source: PSIMemoryPressureSource(path: Self.path),
                                            log: { _ in }, threadName: name, trim: { _ in })
        #expect(monitor.start())
        try await eventually { threadNames().contains(name) }
        #expect(monitor.isRunning)
        monitor.stop()
        #expect(!monitor.isRunning)
        // stop() returned after the thread's last statement; the kernel reaps it a moment later.
        try await eventually { !threadNames().contains(name) }
    }

    @Test func aMissingPSIFileIsReportedWithItsPath() {
        let source = PSIMemoryPressureSource(path: "/proc/pressure/no-such-resource")
        #expect(throws: MemoryPressureUnavailable("cannot open /proc/pressure/no-such-resource: No such file or directory")) {
            try source.arm()
        }
        let lines = Locked<[String]>([])
        let monitor = MemoryPressureMonitor(cache: MemoryCache(costLimit: 1_000), source: source,
                                            log: { line in lines.withLock { $0.append(line) } })
        #expect(monitor.start() == false)
        #expect(lines.current.count == 1)
        #expect(lines.current.first?.hasPrefix("shashin: memory-pressure monitor off: cannot open") == true)
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: path), "skipped: this kernel has no /proc/pressure/memory"))
    func aTriggerTheKernelRefusesIsReportedWithTheKernelsError() {
        // A stall longer than its window is invalid for every kernel and every user.
        let source = PSIMemoryPressureSource(path: Self.path, stallMicroseconds: 3_000_000, windowMicroseconds: 2_000_000)
        #expect(throws: MemoryPressureUnavailable(
            "cannot arm a PSI trigger \"some 3000000 2000000\" on /proc/pressure/memory: Invalid argument")) {
            try source.arm()
        }
    }

    @Test func theTriggerLineIsWhatTheKernelReads() {
        #expect(PSIMemoryPressureSource(path: Self.path).triggerLine == "some 150000 2000000")
        #expect(PSIMemoryPressureSource(path: Self.path, kind: .full, stallMicroseconds: 100_000,
                                        windowMicroseconds: 1_000_000).triggerLine == "full 100000 1000000")
    }
}
#endif
