// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import CVips
import Shashin
import Testing

/// The processors that go through libvips release every image they make, on success and on
/// failure.
@Suite("Processors: memory")
struct ProcessorMemoryTests {
    @Test func processingReleasesEveryVipsObject() throws {
        let opaque = TestImages.gradient(width: 48, height: 32)
        let translucent = TestImages.gradient(width: 48, height: 32, alpha: true)
        let processors: [any ImageProcessing] = [
            .resize(width: 20), .resize(width: 20, height: 20, crop: true), .resize(width: 90, upscale: true),
            .blur(radius: 2), .roundedCorners(radius: 6), .circle,
            .resize(width: 100_000, height: 100_000, upscale: true), // fails before vips
        ]
        func processMany(_ rounds: Int) {
            for _ in 0..<rounds {
                for processor in processors {
                    _ = try? processor.process(opaque)
                    _ = try? processor.process(translucent)
                }
            }
        }
        processMany(20) // warm-up: lazy statics, vips' type system
        let objectsBefore = ResidentMemory.liveVipsObjects()
        let trackedBefore = Int(vips_tracked_get_mem())
        processMany(300)
        let objectGrowth = ResidentMemory.liveVipsObjects() - objectsBefore
        #expect(objectGrowth < 100, "\(objectGrowth) more vips objects alive (other tests may hold a few)")
        let trackedGrowth = Int(vips_tracked_get_mem()) - trackedBefore
        #expect(trackedGrowth < 4 << 20, "vips-tracked memory grew by \(trackedGrowth >> 10) KB")
    }
}
#endif
