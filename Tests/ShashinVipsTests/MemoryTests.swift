// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import CVips
import Foundation
import ShashinCore
import ShashinVips
import Testing

/// Decoding releases everything it made: images, pixel buffers, vips' own objects.
@Suite struct DecoderMemory {
    /// 10,000 decodes — small PNGs, JPEG thumbnails, truncated files (the error path) — in five
    /// batches of 2,000, measuring private resident memory after each.
    ///
    /// Other tests share the process and come and go meanwhile (vips' worker threads keep
    /// buffers, malloc keeps arenas, big test images are made and dropped), so a plain
    /// before/after difference measures them as much as us. A leak grows *every* batch; their
    /// noise lands in some. So the quietest batch × 5 estimates our own growth over 10,000
    /// decodes; it must stay under 20 MB, which a leak of 2 KB per decode (a 16×16 bitmap is
    /// 1 KB, a vips image object more) would break. Live vips objects and vips-tracked memory
    /// are counted exactly on top; they are process-wide counts, so no other decoding test may
    /// run meanwhile: `make test` runs the memory suites in a process of their own, one after
    /// another (`--no-parallel`).
    @Test func tenThousandDecodesKeepMemoryFlat() throws {
        let png = try VipsImageEncoder().encodeBitmap(TestImages.gradient(width: 16, height: 16, alpha: true), as: .png, quality: 1)
        let jpeg = try VipsImageEncoder().encodeBitmap(TestImages.gradient(width: 64, height: 48), as: .jpeg, quality: 0.8)
        let truncated = png.prefix(png.count / 2)
        let decoder = VipsImageDecoder()
        func decodeMany(_ count: Int) {
            for i in 0..<count {
                // Mostly the cheapest decode, to keep the test to a few seconds; every 10th takes
                // the error path, every 25th the thumbnail path (a dozen vips operations).
                if i % 25 == 12 {
                    _ = try? decoder.decodeBitmap(jpeg, context: .init(format: .jpeg, thumbnail: .init(maxPixelSize: 20)))
                } else if i % 10 == 9 {
                    _ = try? decoder.decodeBitmap(truncated, context: .init(format: .png))
                } else {
                    _ = try? decoder.decodeBitmap(png, context: .init(format: .png))
                }
            }
        }
        decodeMany(300) // warm-up: lazy statics, malloc arenas, vips' type system
        let objectsBefore = ResidentMemory.liveVipsObjects()
        let trackedBefore = Int(vips_tracked_get_mem())
        var samples = [try #require(ResidentMemory.settledPrivateBytes(), "needs /proc/self/statm (Linux)")]
        for _ in 0..<5 {
            decodeMany(2_000)
            samples.append(try #require(ResidentMemory.settledPrivateBytes()))
        }
        let batchGrowths = zip(samples.dropFirst(), samples).map { $0 - $1 }
        let estimatedGrowth = batchGrowths.min()! * 5
        #expect(estimatedGrowth < 20 << 20,
                "private memory grew by \(estimatedGrowth >> 10) KB (quietest batch × 5); batches: \(batchGrowths.map { $0 >> 10 }) KB")
        let objectGrowth = ResidentMemory.liveVipsObjects() - objectsBefore
        #expect(objectGrowth < 200, "\(objectGrowth) more vips objects alive (other tests may hold a few)")
        let trackedGrowth = Int(vips_tracked_get_mem()) - trackedBefore
        #expect(trackedGrowth < 8 << 20, "vips-tracked memory grew by \(trackedGrowth >> 10) KB")
    }
}
#endif
