import Foundation
import Testing
@testable import ShashinCore

/// The main-thread check asks once per thread and keeps the answer (`MainThread.keptAnswer`), and
/// gives Foundation's answer. Under `swift test` on Linux no test code runs on the process's main
/// thread (the main queue is drained by a dispatch thread), so the kept answer is tested with
/// answers given to it.
@Suite("The main-thread check")
struct MainThreadTests {
    /// Runs `body` on a thread of its own, which has asked nothing yet.
    private func onNewThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }

    @Test func aThreadKeepsItsFirstAnswerAndAsksOnce() async {
        let asked = Locked(0)
        let first = await onNewThread {
            [MainThread.keptAnswer { asked.withLock { $0 += 1 }; return true },
             MainThread.keptAnswer { asked.withLock { $0 += 1 }; return false }]
        }
        #expect(first == [true, true])
        let second = await onNewThread {
            [MainThread.keptAnswer { asked.withLock { $0 += 1 }; return false },
             MainThread.keptAnswer { asked.withLock { $0 += 1 }; return true }]
        }
        #expect(second == [false, false])
        #expect(asked.current == 2)
    }

    @Test func itGivesFoundationsAnswer() async {
        let onThread = await onNewThread { [Thread.isMainThread, MainThread.isCurrent, MainThread.isCurrent] }
        #expect(onThread == [false, false, false])
        let onMainActor = await MainActor.run { (Thread.isMainThread, MainThread.isCurrent) }
        #expect(onMainActor.1 == onMainActor.0)
    }
}
