import ShashinCore

/// The tasks answering requests now, so ``ImageServer/stop()`` can cancel them and wait until
/// every one is over. A task leaves the set when it ends.
final class ResponseTasks: Sendable {
    private struct State: Sendable {
        var nextID = 0
        var running: [Int: Task<Void, Never>] = [:]
        /// Tasks that ended before they were added (a fast response), so `add` skips them.
        var endedEarly: Set<Int> = []
    }

    private let state = Locked(State())

    /// Starts `work` as a tracked task and returns it.
    @discardableResult
    func start(_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let task = Task {
            await work()
            self.state.withLock { state in
                if state.running.removeValue(forKey: id) == nil { state.endedEarly.insert(id) }
            }
        }
        state.withLock { state in
            if state.endedEarly.remove(id) == nil { state.running[id] = task }
        }
        return task
    }

    /// Cancels every running task and waits until all have ended.
    func cancelAndWait() async {
        while true {
            let tasks = state.withLock { Array($0.running.values) }
            guard !tasks.isEmpty else { return }
            for task in tasks { task.cancel() }
            for task in tasks { await task.value }
        }
    }
}
