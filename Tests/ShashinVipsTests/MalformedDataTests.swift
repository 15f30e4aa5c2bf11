// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ShashinCore
import ShashinVips
import Testing

/// Bad bytes fail with `ImagePipelineError`: never a crash, never part of an image.
@Suite struct MalformedDataDecoding {
    static let source = TestImages.gradient(width: 300, height: 200, alpha: true)

    @Test(arguments: [ImageFormat.jpeg, .png, .webp, .gif])
    func aFileCutInHalfFailsInsteadOfGivingPartOfAnImage(format: ImageFormat) throws {
        let whole = try VipsImageEncoder().encodeBitmap(Self.source, as: format, quality: 0.9)
        let half = whole.prefix(whole.count / 2)
        for thumbnail in [nil, ThumbnailOptions(maxPixelSize: 64)] {
            let error = #expect(throws: ImagePipelineError.self) {
                try VipsImageDecoder().decode(half, context: .init(format: format, thumbnail: thumbnail))
            }
            guard case .decodingFailed(format, let reason) = error else {
                Issue.record("\(format): \(String(describing: error))")
                continue
            }
            #expect(!reason.isEmpty)
        }
    }

    @Test(arguments: [Data(), Data("<!DOCTYPE html><html><body>Not found</body></html>".utf8), Data([0xFF, 0xD8])])
    func dataThatIsNoKnownImageFailsWithoutAFormat(data: Data) {
        let error = #expect(throws: ImagePipelineError.self) {
            try VipsImageDecoder().decode(data, context: .init(format: nil))
        }
        guard case .decodingFailed(nil, _) = error else {
            Issue.record("\(String(describing: error)) instead of decodingFailed(format: nil)")
            return
        }
    }

    @Test func aFormatThisDecoderDoesNotReadFailsWithItsName() {
        let tiffHeader = Data([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0])
        let error = #expect(throws: ImagePipelineError.self) {
            try VipsImageDecoder().decode(tiffHeader, context: .init(format: .tiff))
        }
        guard case .decodingFailed(.tiff, _) = error else {
            Issue.record("\(String(describing: error))")
            return
        }
    }

    /// Random damage anywhere in valid files (a few hundred cases per format): each decode
    /// either fails with `ImagePipelineError` or gives a complete bitmap — the process survives.
    @Test(arguments: [ImageFormat.jpeg, .png, .webp, .gif])
    func randomlyDamagedFilesNeverCrashTheDecoder(format: ImageFormat) throws {
        let original = [UInt8](try VipsImageEncoder().encodeBitmap(TestImages.gradient(width: 40, height: 30), as: format, quality: 0.8))
        var random = SplitMix64(seed: 0x5A5A_0000 + UInt64(original.count))
        for _ in 0..<300 {
            var damaged = original
            for _ in 0..<Int(random.next() % 4 + 1) {
                let position = Int(random.next() % UInt64(damaged.count))
                damaged[position] = UInt8(truncatingIfNeeded: random.next())
            }
            if random.next() % 4 == 0 { damaged.removeLast(Int(random.next() % UInt64(damaged.count))) }
            do {
                let bitmap = try VipsImageDecoder().decodeBitmap(Data(damaged), context: .init(format: format, maxPixelCount: 4_000_000))
                #expect(bitmap.pixels.count == bitmap.width * bitmap.height * 4)
            } catch {
                // Any ImagePipelineError is a correct answer to damaged data.
            }
        }
    }
}

/// A small seeded generator, so a failing damage pattern can be replayed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
#endif
