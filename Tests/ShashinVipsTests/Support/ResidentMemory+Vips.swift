// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import CVips
import Foundation
import ShashinCore

/// What the memory tests read on top of the core's `ResidentMemory`.
extension ResidentMemory {
    /// `VmRSS` and `VmHWM` (peak since the last `resetPeak()`), in bytes.
    static func residentAndPeak() -> (resident: Int, peak: Int)? {
        now().map { ($0.resident, $0.peak) }
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
