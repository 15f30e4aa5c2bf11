import Foundation

/// The process's resident set size, read from `/proc/self/status` (`VmRSS`, and the peak
/// `VmHWM`); `nil` where there is no `/proc` (macOS).
struct ResidentMemory: Sendable, Codable {
    /// Resident bytes now.
    var resident: Int
    /// The most resident bytes so far.
    var peak: Int

    static func now() -> ResidentMemory? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        func field(_ name: String) -> Int? {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return nil }
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 }
        }
        guard let resident = field("VmRSS"), let peak = field("VmHWM") else { return nil }
        return ResidentMemory(resident: resident, peak: peak)
    }
}
