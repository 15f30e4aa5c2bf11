import Foundation

/// Monotonic seconds for durations (wall-clock time can jump).
func monotonicNow() -> TimeInterval {
    ProcessInfo.processInfo.systemUptime
}
