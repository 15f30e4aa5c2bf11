import Foundation
import Testing
@testable import ShashinCore

@Suite("Work queue")
struct WorkQueueTests {
    /// Enqueues items that record their start and stay running until released.
    final class Recorder: @unchecked Sendable { // `state` behind its lock
        let state = Locked<(started: [String], items: [String: WorkItem])>(([], [:]))
        var started: [String] { state.withLock { $0.started } }
        func enqueue(_ name: String, _ priority: ImageRequest.Priority, on queue: WorkQueue) -> WorkItem {
            queue.enqueue(priority: priority) { item in
                self.state.withLock { $0.started.append(name); $0.items[name] = item }
            }
        }
        func finish(_ name: String) { state.withLock { $0.items[name] }?.finish() }
    }

    @Test func neverRunsMoreThanItsLimit() {
        let queue = WorkQueue(name: "test", maxConcurrent: 2)
        let recorder = Recorder()
        for i in 0..<5 { _ = recorder.enqueue("\(i)", .normal, on: queue) }
        #expect(recorder.started == ["0", "1"])
        #expect(queue.runningCount == 2 && queue.pendingCount == 3)
        recorder.finish("0")
        #expect(recorder.started == ["0", "1", "2"])
    }

    @Test func startsQueuedWorkInPriorityOrder() {
        let queue = WorkQueue(name: "test", maxConcurrent: 1)
        let recorder = Recorder()
        _ = recorder.enqueue("busy", .normal, on: queue)
        _ = recorder.enqueue("low", .low, on: queue)
        _ = recorder.enqueue("high", .high, on: queue)
        _ = recorder.enqueue("normal1", .normal, on: queue)
        _ = recorder.enqueue("normal2", .normal, on: queue)
        _ = recorder.enqueue("veryHigh", .veryHigh, on: queue)
        for name in ["busy", "veryHigh", "high", "normal1", "normal2"] { recorder.finish(name) }
        #expect(recorder.started == ["busy", "veryHigh", "high", "normal1", "normal2", "low"])
    }

    @Test func aPriorityChangeWhileQueuedMovesTheItem() {
        let queue = WorkQueue(name: "test", maxConcurrent: 1)
        let recorder = Recorder()
        _ = recorder.enqueue("busy", .normal, on: queue)
        let a = recorder.enqueue("a", .low, on: queue)
        _ = recorder.enqueue("b", .normal, on: queue)
        a.setPriority(.high)
        a.setPriority(.veryLow)   // the last change wins
        a.setPriority(.veryHigh)
        recorder.finish("busy")
        #expect(recorder.started == ["busy", "a"])
    }

    @Test func cancellingAQueuedItemFreesItsPlaceWithoutRunningIt() {
        let queue = WorkQueue(name: "test", maxConcurrent: 1)
        let recorder = Recorder()
        _ = recorder.enqueue("busy", .normal, on: queue)
        let b = recorder.enqueue("b", .normal, on: queue)
        _ = recorder.enqueue("c", .normal, on: queue)
        b.cancel()
        #expect(queue.pendingCount == 1)
        recorder.finish("busy")
        #expect(recorder.started == ["busy", "c"])
    }

    @Test func cancellingARunningItemCallsItsHandlerAndItsFinishFreesTheSlot() {
        let queue = WorkQueue(name: "test", maxConcurrent: 1)
        let cancelled = Locked(false)
        let item = queue.enqueue(priority: .normal) { item in item.onCancel { cancelled.withLock { $0 = true } } }
        item.cancel()
        #expect(cancelled.current && item.isCancelled)
        #expect(queue.runningCount == 1)
        item.finish()
        item.finish() // a second finish must not free a second slot
        #expect(queue.runningCount == 0)
    }

    /// Enqueues named items that record, when they start, whether others of the queue ran.
    struct BesideRecorder {
        let queue: WorkQueue
        let seen = Locked<[String: Bool]>([:])
        init(_ queue: WorkQueue) { self.queue = queue }
        func enqueue(_ name: String) -> WorkItem {
            queue.enqueue(priority: .normal) { [seen] item in seen.withLock { $0[name] = item.startsBesideOthers } }
        }
    }

    /// An item knows, when it starts, whether others of its queue were running: the first of a
    /// queue does not, one started beside it does, one started from a slot freed while another
    /// still runs does, and one enqueued once the queue is idle again does not.
    @Test func anItemKnowsWhetherOthersRanWhenItStarted() {
        let queue = WorkQueue(name: "test", maxConcurrent: 2)
        let beside = BesideRecorder(queue)
        let enqueue = beside.enqueue
        let first = enqueue("first")
        let second = enqueue("second")
        let third = enqueue("third") // queued: both slots are taken
        #expect(beside.seen.current == ["first": false, "second": true])
        first.finish()
        #expect(beside.seen.current["third"] == true) // "second" still runs
        second.finish()
        third.finish()
        _ = enqueue("alone")
        #expect(beside.seen.current["alone"] == false)
    }

    /// An item given the slot its queue's only running item freed starts alone.
    @Test func anItemStartedFromTheLastFreedSlotStartsAlone() {
        let queue = WorkQueue(name: "test", maxConcurrent: 1)
        let beside = BesideRecorder(queue)
        let enqueue = beside.enqueue
        let running = enqueue("running")
        _ = enqueue("next")
        #expect(beside.seen.current == ["running": false])
        running.finish()
        #expect(beside.seen.current == ["running": false, "next": false])
    }
}
