import Foundation
import Testing
@testable import ShashinCore

/// `MainThread.isCurrent` gives Foundation's answer, the first time a thread asks and every time
/// after (when the answer is kept per thread). Under `swift test` on Linux no test code runs on the
/// process's main thread (the main queue is drained by a dispatch thread), so these threads all
/// answer no there.
@Suite("The main-thread check")
struct MainThreadTests {
    @Test func theMainActorsThreadAnswersAsFoundationDoes() async {
        let answers = await MainActor.run { (Thread.isMainThread, MainThread.isCurrent, MainThread.isCurrent) }
        #expect(answers.1 == answers.0 && answers.2 == answers.0)
    }

    @Test func otherThreadsAnswerAsFoundationDoes() async {
        let onThread = await withCheckedContinuation { continuation in
            Thread {
                continuation.resume(returning: (Thread.isMainThread, MainThread.isCurrent, MainThread.isCurrent))
            }.start()
        }
        #expect(onThread == (false, false, false))
        let onQueue = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: [Thread.isMainThread, MainThread.isCurrent, MainThread.isCurrent])
            }
        }
        #expect(onQueue == [false, false, false])
    }
}
