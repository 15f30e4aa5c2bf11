// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import CVips
import Foundation

/// Memory measures for leak tests.
enum ResidentMemory {
    /// The process's private resident memory: resident pages minus shared (file-backed)
    /// ones, from `/proc/self/statm` (Linux only; `nil` elsewhere). Library code and data files
    /// paged in by other tests are not memory anybody leaked.
    static func privateBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 2, let resident = Int(fields[1]), let shared = Int(fields[2]) else { return nil }
        return (resident - shared) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Private resident memory once malloc has handed its free pages back, lowest of a few
    /// samples: what other tests free, or hold only for a moment, is not ours to count.
    static func settledPrivateBytes() -> Int? {
        var lowest: Int?
        for _ in 0..<5 {
            _ = mallocTrim?(0)
            guard let now = privateBytes() else { return nil }
            lowest = min(lowest ?? now, now)
            usleep(10_000)
        }
        return lowest
    }

    /// glibc's `malloc_trim` (declared in <malloc.h>, which Swift's Glibc module leaves out).
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()

    /// Resets the kernel's peak-resident mark (`VmHWM`) to the current resident size, by
    /// writing 5 to `/proc/self/clear_refs` (Linux 4.0+). Returns `false` where that is refused.
    static func resetPeak() -> Bool {
        (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
    }

    /// `VmRSS` and `VmHWM` (peak since the last reset) from `/proc/self/status`, in bytes.
    static func residentAndPeak() -> (resident: Int, peak: Int)? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        func field(_ name: String) -> Int? {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }),
                  let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
            return kilobytes << 10
        }
        guard let resident = field("VmRSS"), let peak = field("VmHWM") else { return nil }
        return (resident, peak)
    }

    /// How many libvips objects (images, operations, buffers' owners) are alive right now.
    static func liveVipsObjects() -> Int {
        var count = 0
        _ = withUnsafeMutablePointer(to: &count) { counter in
            vips_object_map({ _, counter, _ in
                counter!.assumingMemoryBound(to: Int.self).pointee += 1
                return nil
            }, counter, nil)
        }
        return count
    }
}
#endif
