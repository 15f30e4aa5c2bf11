import Foundation

extension ImagePipeline {
    /// What the pipeline holds in its job graph and work queues at one moment; all zero when
    /// drained. Tools and soak tests read it to show that nothing was left behind.
    ///
    /// ```swift
    /// let work = pipeline.workCounts
    /// print(work.jobs, work.queued, work.running)   // 0 0 0 when idle
    /// ```
    public struct WorkCounts: Sendable, Hashable, CustomStringConvertible {
        /// Shared jobs alive in the graph: downloads, decodes and processing steps.
        public var jobs: Int
        /// Work items waiting for a slot on the network, decode and processing queues.
        public var queued: Int
        /// Work items holding a slot on those queues (background refreshes included).
        public var running: Int

        /// Whether nothing is left: no job, nothing queued, nothing running.
        public var isDrained: Bool { jobs == 0 && queued == 0 && running == 0 }

        /// `jobs 0, queued 0, running 0`.
        public var description: String { "jobs \(jobs), queued \(queued), running \(running)" }
    }

    /// The jobs and work items alive now. Takes the graph's actor for a moment: call it from
    /// outside the pipeline (a tool, a test), not from a processor or a data loader.
    public var workCounts: WorkCounts {
        let queues = [graph.networkQueue, graph.decodeQueue, graph.processingQueue]
        return WorkCounts(jobs: graph.jobCount,
                          queued: queues.reduce(0) { $0 + $1.pendingCount },
                          running: queues.reduce(0) { $0 + $1.runningCount })
    }
}
