import Foundation
import ShashinCore

/// A retry clock that never waits (a cancelled wait still throws).
struct ImmediateRetryClock: RetryClock {
    func now() -> Date { Date(timeIntervalSince1970: 1_700_000_000) }
    func sleep(for seconds: TimeInterval) async throws { try Task.checkCancellation() }
}
