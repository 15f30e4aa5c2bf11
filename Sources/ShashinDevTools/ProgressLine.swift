import Foundation
import ShashinCore

/// A progress line on standard error: redrawn in place on a terminal, printed every quarter
/// otherwise (so logs stay short).
final class ProgressLine: Sendable {
    private let state = Locked((done: 0, failed: 0, lastQuarter: 0))
    private let total: Int
    private let label: String
    private let start = Date()
    private let isTerminal = isatty(STDERR_FILENO) != 0
    private let enabled: Bool

    init(label: String, total: Int, enabled: Bool = true) {
        self.label = label
        self.total = total
        self.enabled = enabled
    }

    func advance(failed: Bool) {
        let (done, failures, shouldPrint) = state.withLock { state in
            state.done += 1
            if failed { state.failed += 1 }
            let quarter = total > 0 ? state.done * 4 / total : 4
            let shouldPrint = isTerminal || quarter > state.lastQuarter
            state.lastQuarter = max(state.lastQuarter, quarter)
            return (state.done, state.failed, shouldPrint)
        }
        guard enabled, shouldPrint else { return }
        let seconds = Date().timeIntervalSince(start)
        let percent = total > 0 ? done * 100 / total : 100
        let line = String(format: "%@ [%4ld/%ld] %3ld%%  %ld failed  %.1f s", label, done, total, percent, failures, seconds)
        FileHandle.standardError.write(Data((isTerminal ? "\r\u{1B}[K" + line : line + "\n").utf8))
    }

    func finish() {
        guard enabled, isTerminal else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
