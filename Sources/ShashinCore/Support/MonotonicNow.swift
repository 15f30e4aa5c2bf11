import Dispatch
import Foundation

/// Monotonic seconds for durations (wall-clock time can jump): the clock `ProcessInfo.systemUptime`
/// reads (`CLOCK_MONOTONIC` on Linux, the uptime clock on Apple platforms), read through
/// `DispatchTime`, a value: asking the shared `ProcessInfo` instead retains and releases that one
/// object, which every download does several times on every core.
func monotonicNow() -> TimeInterval {
    TimeInterval(DispatchTime.now().uptimeNanoseconds) / 1_000_000_000
}
