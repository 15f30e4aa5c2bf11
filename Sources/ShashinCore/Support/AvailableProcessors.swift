import Foundation

/// The cores this process may run on: on Linux the CPUs of its affinity mask (`taskset`, a
/// container's cpuset), which `ProcessInfo.activeProcessorCount` does not read there; elsewhere
/// the active cores. At least 1.
enum AvailableProcessors {
    static let count: Int = {
        let active = max(1, ProcessInfo.processInfo.activeProcessorCount)
        #if os(Linux)
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let allowed = affinityCount(status: status) else { return active }
        return max(1, min(active, allowed))
        #else
        return active
        #endif
    }()

    /// The CPUs in `Cpus_allowed` of a `/proc/<pid>/status` text (comma-separated groups of hex
    /// digits, each digit four CPUs); `nil` when the line is missing or unreadable.
    static func affinityCount(status: String) -> Int? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) else { return nil }
        var count = 0
        for character in line.dropFirst("Cpus_allowed:".count) where character != "," && !character.isWhitespace {
            guard let digit = character.hexDigitValue else { return nil }
            count += digit.nonzeroBitCount
        }
        return count > 0 ? count : nil
    }
}
