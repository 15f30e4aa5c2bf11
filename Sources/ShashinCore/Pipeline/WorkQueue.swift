import Foundation

/// Runs at most `maxConcurrent` operations at once, starting queued ones highest priority first
/// (first come, first served within a priority). A queued item's priority can change; cancelling
/// a queued item removes it, cancelling a running one asks it to stop, and its slot is freed when
/// it calls `finish()`.
final class WorkQueue: @unchecked Sendable { // `pending`, `running` and every item's state behind `lock`
    typealias Priority = ImageRequest.Priority

    let name: String
    let maxConcurrent: Int
    private let lock = Lock()
    private var pending: [[WorkItem]] = Array(repeating: [], count: Priority.allCases.count)
    private var running = 0

    init(name: String, maxConcurrent: Int) {
        self.name = name
        self.maxConcurrent = max(1, maxConcurrent)
    }

    /// Queues `start`, which is called (on an arbitrary thread, outside the lock) when a slot is
    /// free. `start` must eventually call `item.finish()`.
    func enqueue(priority: Priority, start: @escaping @Sendable (WorkItem) -> Void) -> WorkItem {
        let item = WorkItem(queue: self, priority: priority, start: start)
        let ready = lock.locked {
            pending[priority.rawValue].append(item)
            return dequeueReady()
        }
        launch(ready)
        return item
    }

    /// Operations running now.
    var runningCount: Int { lock.locked { running } }
    /// Operations waiting for a slot.
    var pendingCount: Int { lock.locked { pending.reduce(0) { $0 + $1.count } } }

    // MARK: Called by WorkItem

    fileprivate func setPriority(_ item: WorkItem, _ priority: Priority) {
        lock.locked {
            guard item.priority != priority else { return }
            if item.state == .pending, let index = pending[item.priority.rawValue].firstIndex(where: { $0 === item }) {
                pending[item.priority.rawValue].remove(at: index)
                pending[priority.rawValue].append(item)
            }
            item.priority = priority
        }
    }

    fileprivate func cancel(_ item: WorkItem) {
        let onCancel = lock.locked { () -> (@Sendable () -> Void)? in
            switch item.state {
            case .pending:
                if let index = pending[item.priority.rawValue].firstIndex(where: { $0 === item }) {
                    pending[item.priority.rawValue].remove(at: index)
                }
                item.state = .finished
                item.start = nil
                return nil
            case .running:
                item.cancelRequested = true
                return item.onCancel
            case .finished:
                return nil
            }
        }
        onCancel?()
    }

    fileprivate func setCancellationHandler(_ item: WorkItem, _ handler: @escaping @Sendable () -> Void) {
        let cancelNow = lock.locked { () -> Bool in
            if !item.cancelRequested { item.onCancel = handler }
            return item.cancelRequested
        }
        if cancelNow { handler() }
    }

    fileprivate func isCancelled(_ item: WorkItem) -> Bool { lock.locked { item.cancelRequested } }

    fileprivate func finish(_ item: WorkItem) {
        let ready = lock.locked { () -> [WorkItem] in
            guard item.state == .running else { return [] }
            item.state = .finished
            item.onCancel = nil
            running -= 1
            return dequeueReady()
        }
        launch(ready)
    }

    // MARK: Scheduling

    /// Takes the items that may start now; the caller holds the lock.
    private func dequeueReady() -> [WorkItem] {
        var ready: [WorkItem] = []
        while running < maxConcurrent, let level = pending.lastIndex(where: { !$0.isEmpty }) {
            let item = pending[level].removeFirst()
            item.state = .running
            running += 1
            item.startsBesideOthers = running > 1
            ready.append(item)
        }
        return ready
    }

    private func launch(_ items: [WorkItem]) {
        for item in items {
            // The closure captures the job that holds this item: drop it once used, or the two
            // would keep each other (and through the job, the whole pipeline) alive.
            let start = lock.locked { () -> (@Sendable (WorkItem) -> Void)? in
                defer { item.start = nil }
                return item.start
            }
            start?(item)
        }
    }
}

/// One operation in a `WorkQueue`.
final class WorkItem: @unchecked Sendable { // mutable state behind its queue's lock; `startsBesideOthers` written under it before `start`, read only by `start`
    enum State { case pending, running, finished }

    private let queue: WorkQueue // strong: a running item keeps its queue alive
    fileprivate var start: (@Sendable (WorkItem) -> Void)?
    fileprivate var priority: ImageRequest.Priority
    fileprivate var state = State.pending
    fileprivate var cancelRequested = false
    fileprivate var onCancel: (@Sendable () -> Void)?
    /// Whether other operations of the queue were running when this one was given its slot. Set
    /// before its `start` is called and never changed after, so `start` reads it without the lock.
    fileprivate(set) var startsBesideOthers = false

    fileprivate init(queue: WorkQueue, priority: ImageRequest.Priority, start: @escaping @Sendable (WorkItem) -> Void) {
        self.queue = queue
        self.priority = priority
        self.start = start
    }

    /// Moves a queued item to another priority (no effect once it runs).
    func setPriority(_ priority: ImageRequest.Priority) { queue.setPriority(self, priority) }
    /// Removes a queued item, or asks a running one to stop.
    func cancel() { queue.cancel(self) }
    /// Whether `cancel()` was called while running.
    var isCancelled: Bool { queue.isCancelled(self) }
    /// Registers what stops the running operation; called at once if already cancelled.
    func onCancel(_ handler: @escaping @Sendable () -> Void) { queue.setCancellationHandler(self, handler) }
    /// Frees the slot; the running operation must call it exactly once when done.
    func finish() { queue.finish(self) }
}
