import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The process's resident set size, read from `/proc/self/status`: `VmRSS` (what the soak
/// compares), its anonymous part (`RssAnon`: the heap) and its file-backed part (`RssFile`:
/// mapped files, such as the disk cache's SQLite database), and the peak `VmHWM`; `nil` where
/// there is no `/proc` (macOS).
struct ResidentMemory: Sendable, Codable {
    /// Resident bytes now (`VmRSS`).
    var resident: Int
    /// Resident anonymous bytes (`RssAnon`).
    var anonymous: Int
    /// Resident file-backed bytes (`RssFile`).
    var fileBacked: Int
    /// The most resident bytes so far (`VmHWM`).
    var peak: Int
    /// Bytes glibc's malloc has handed out and not taken back (live allocations, whatever pages
    /// they sit on): flat when nothing leaks, even while fragmentation moves `anonymous`.
    var mallocInUse: Int?
    /// Threads in the process (`Threads`): each has a stack of its own among the anonymous pages.
    var threads: Int?

    /// Asks glibc to give the free pages of every heap back to the system (`malloc_trim(0)`), so
    /// that `VmRSS` counts live memory (and the fragmentation around it) rather than pages kept
    /// from the busiest moment so far. Returns whether it could.
    @discardableResult
    static func trimHeap() -> Bool {
        #if canImport(Glibc)
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return false }
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        return true
        #else
        return false
        #endif
    }

    static func now() -> ResidentMemory? {
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
    static func mallocInUse() -> Int? {
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
}
