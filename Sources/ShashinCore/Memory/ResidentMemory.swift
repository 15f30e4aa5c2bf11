import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The process's resident set size, read from `/proc/self/status`: `VmRSS`, its anonymous part
/// (`RssAnon`: the heap) and its file-backed part (`RssFile`: mapped files, such as the disk
/// cache's SQLite database), and the peak `VmHWM`; `nil` where there is no `/proc` (macOS).
///
/// The one reader of the process's memory for the soak, `shashin-bench memory` and the memory
/// tests (`package`: not part of the library's API).
package struct ResidentMemory: Sendable, Codable {
    /// Resident bytes now (`VmRSS`).
    package var resident: Int
    /// Resident anonymous bytes (`RssAnon`).
    package var anonymous: Int
    /// Resident file-backed bytes (`RssFile`).
    package var fileBacked: Int
    /// The most resident bytes so far (`VmHWM`).
    package var peak: Int
    /// Bytes glibc's malloc has handed out and not taken back (live allocations, whatever pages
    /// they sit on): flat when nothing leaks, even while fragmentation moves `anonymous`.
    package var mallocInUse: Int?
    /// Threads in the process (`Threads`): each has a stack of its own among the anonymous pages.
    package var threads: Int?

    /// Asks glibc to give the free pages of every heap back to the system (`malloc_trim(0)`), so
    /// that `VmRSS` counts live memory (and the fragmentation around it) rather than pages kept
    /// from the busiest moment so far. Returns whether it could.
    @discardableResult
    package static func trimHeap() -> Bool {
        #if canImport(Glibc)
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return false }
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        return true
        #else
        return false
        #endif
    }

    /// Now; `nil` without `/proc/self/status`.
    package static func now() -> ResidentMemory? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        /// The number after `name:`, such as `VmRSS:	  12345 kB` or `Threads:	9`.
        func number(_ name: String) -> Int? {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return nil }
            return line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Int($0) }
        }
        func field(_ name: String) -> Int? { number(name).map { $0 * 1024 } } // kB
        guard let resident = field("VmRSS"), let peak = field("VmHWM") else { return nil }
        return ResidentMemory(resident: resident, anonymous: field("RssAnon") ?? 0, fileBacked: field("RssFile") ?? 0, peak: peak,
                              mallocInUse: mallocInUse(), threads: number("Threads"))
    }

    /// From `malloc_info`'s totals: the heaps' size less their free chunks, plus mmapped chunks.
    /// Looked up at run time: glibc only, and the Glibc module does not import it.
    package static func mallocInUse() -> Int? {
        #if canImport(Glibc)
        typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_info") else { return nil }
        var buffer: UnsafeMutablePointer<CChar>?
        var size = 0
        guard let stream = open_memstream(&buffer, &size) else { return nil }
        let status = unsafeBitCast(symbol, to: MallocInfo.self)(0, stream)
        fclose(stream)
        guard let buffer else { return nil }
        defer { free(buffer) }
        guard status == 0 else { return nil }
        let xml = String(cString: buffer)
        // The totals over all arenas are the last lines of each kind, after the per-heap blocks.
        func last(_ prefix: String) -> Int? {
            guard let line = xml.split(separator: "\n").last(where: { $0.contains(prefix) }),
                  let range = line.range(of: "size=\"") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
        guard let system = last("<system type=\"current\""), let fast = last("<total type=\"fast\""),
              let rest = last("<total type=\"rest\""), let mmapped = last("<total type=\"mmap\"") else { return nil }
        return system - fast - rest + mmapped
        #else
        return nil
        #endif
    }

    /// The process's private resident memory: resident pages minus shared (file-backed) ones,
    /// from `/proc/self/statm`; `nil` where there is none. Library code and data files paged in
    /// by other work are not memory anybody leaked.
    package static func privateBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 2, let resident = Int(fields[1]), let shared = Int(fields[2]) else { return nil }
        return (resident - shared) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Private resident memory once malloc has handed its free pages back, lowest of five
    /// samples 10 ms apart: what other threads free, or hold only for a moment, is not counted.
    package static func settledPrivateBytes() -> Int? {
        var lowest: Int?
        for _ in 0..<5 {
            trimHeap()
            guard let now = privateBytes() else { return nil }
            lowest = min(lowest ?? now, now)
            usleep(10_000)
        }
        return lowest
    }

    /// Resets the kernel's peak-resident mark (`VmHWM`) to the current resident size, by writing
    /// 5 to `/proc/self/clear_refs` (Linux 4.0+). Returns `false` where that is refused.
    package static func resetPeak() -> Bool {
        (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
    }
}
