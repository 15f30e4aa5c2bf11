import Foundation
import Shashin

/// What the soak's requests did, counted as they end, and the invariants they broke. Shared by
/// every worker of the run; all state behind one lock.
final class SoakTally: Sendable {
    struct State: Sendable {
        var ended = 0
        /// How many times each request ended, by ordinal; allocated up front so counting does not grow memory.
        var endedByOrdinal: [Int]
        var outcomes: [SoakRouteKind: [String: Int]] = [:]
        var categories: [SoakRouteKind: [String: Int]] = [:]
        var variants: [String: [String: Int]] = [:]
        var tasksStarted = 0
        var memoryHits = 0
        var cancelsRequested = 0
        var priorityChanges = 0
        var violationCount = 0
        var violations: [String] = []
        /// Requests the watchdog gave up on (and cancelled).
        var abandoned: Set<Int> = []
        /// Requests started and not yet ended: what the watchdog reports if progress stops.
        var inFlight: [Int: (plan: SoakRequestPlan, task: ImageTask?, since: ContinuousClock.Instant)] = [:]
    }

    /// The most violation messages kept (all are counted).
    static let keptViolations = 100

    let state: Locked<State>

    init(requests: Int) {
        state = Locked(State(endedByOrdinal: Array(repeating: 0, count: requests)))
    }

    func begin(_ plan: SoakRequestPlan) {
        state.withLock { $0.inFlight[plan.ordinal] = (plan, nil, .now) }
    }

    func attach(_ task: ImageTask, to plan: SoakRequestPlan) {
        state.withLock { state in
            state.tasksStarted += 1
            state.inFlight[plan.ordinal]?.task = task
        }
    }

    func countCancel() { state.withLock { $0.cancelsRequested += 1 } }
    func countPriorityChange() { state.withLock { $0.priorityChanges += 1 } }

    /// Records how `plan` ended; a second end of the same request is itself a violation.
    /// Returns how many requests have ended.
    @discardableResult
    func end(_ plan: SoakRequestPlan, _ outcome: SoakOutcome, fromMemory: Bool) -> Int {
        state.withLock { state in
            state.inFlight[plan.ordinal] = nil
            state.endedByOrdinal[plan.ordinal] += 1
            if state.endedByOrdinal[plan.ordinal] > 1 {
                Self.record(&state, "request \(plan.ordinal) (\(plan.entry.path)) ended \(state.endedByOrdinal[plan.ordinal]) times")
            }
            state.ended += 1
            if fromMemory { state.memoryHits += 1 }
            state.outcomes[plan.entry.kind, default: [:]][outcome.label, default: 0] += 1
            state.categories[plan.entry.kind, default: [:]][outcome.category, default: 0] += 1
            state.variants[plan.variant.rawValue, default: [:]][outcome.category, default: 0] += 1
            return state.ended
        }
    }

    func violation(_ message: String) {
        state.withLock { Self.record(&$0, message) }
    }

    private static func record(_ state: inout State, _ message: String) {
        state.violationCount += 1
        if state.violations.count < keptViolations { state.violations.append(message) }
    }

    var ended: Int { state.withLock { $0.ended } }

    func wasAbandoned(_ plan: SoakRequestPlan) -> Bool { state.withLock { $0.abandoned.contains(plan.ordinal) } }

    /// Reports every request in flight as never having ended and cancels its task, so the run can
    /// finish and say so. Returns how many there were.
    func abandonInFlight(stalledFor: Duration) -> Int {
        let stuck = state.withLock { state in
            let stuck = state.inFlight.values.sorted { $0.plan.ordinal < $1.plan.ordinal }
            for (plan, task, since) in stuck {
                state.abandoned.insert(plan.ordinal)
                Self.record(&state, "request \(plan.ordinal) (\(plan.entry.path), \(plan.variant.rawValue), "
                    + "task \(task.map { "\($0.id)" } ?? "none")) had not ended after \(since.duration(to: .now)); "
                    + "no request ended for \(stalledFor)")
            }
            return stuck
        }
        for entry in stuck { entry.task?.cancel() }
        return stuck.count
    }
}
