import Foundation
@testable import ShashinCore
import Testing

@Suite("Transfer deadline")
struct TransferDeadlineTests {
    final class Token: Sendable {}

    @Test func cancellingReleasesWhatTheActionHoldsLongBeforeItsTime() async throws {
        weak var released: Token?
        do {
            let token = Token()
            released = token
            let deadline = TransferDeadline(seconds: 300) { _ = token }
            deadline.cancel()
        }
        try await eventually { released == nil }
    }

    @Test func theActionRunsOnceAtItsTime() async throws {
        let runs = Locked(0)
        let deadline = TransferDeadline(seconds: 0.01) { runs.withLock { $0 += 1 } }
        try await eventually { runs.withLock { $0 } == 1 }
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(runs.withLock { $0 } == 1)
        deadline.cancel()
    }
}
