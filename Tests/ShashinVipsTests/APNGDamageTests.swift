// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ImageServer
import ShashinCore
import ShashinVips
import Testing

/// Damaged and hostile APNGs: the frames before the damage, flagged `.damaged`, or a typed
/// error when the first frame is lost; never a crash or an allocation the file's numbers ask for.
@Suite struct APNGDamage {
    typealias Frame = AnimatedPNGWriter.Frame
    typealias Chunk = AnimatedPNGWriter.Chunk
    static let quadrants = AnimatedImages.quadrantFrames(count: 4)

    /// Four 16×12 frames, frames 1–3 with their data in two `fdAT`s each.
    static func chunks() -> [Chunk] {
        var writer = AnimatedPNGWriter(width: 16, height: 12, plays: 0)
        writer.frames = quadrants.map { Frame(image: $0) }
        writer.maxChunkDataLength = 500
        return writer.chunks()
    }

    static func decode(_ data: Data) throws(ImagePipelineError) -> Bitmap {
        try VipsImageDecoder().decodeBitmap(data, context: .init(format: .png))
    }

    /// `chunks` with the `index`th `fcTL` (0-based) changed by `change`.
    static func changingFrameControl(_ index: Int, _ change: (inout [UInt8]) -> Void) -> Data {
        var chunks = chunks()
        let position = chunks.indices.filter { chunks[$0].type == "fcTL" }[index]
        change(&chunks[position].data)
        return AnimatedPNGWriter.file(chunks)
    }

    static func setUInt32(_ value: UInt32, at offset: Int, in bytes: inout [UInt8]) {
        for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(i))) }
    }

    /// Expects `data` to give frames 0..<`count` exactly, flagged `.damaged(decodedFrames: count)`.
    static func expectFramesBefore(_ count: Int, in data: Data, _ note: Comment) throws {
        let animation = try #require(try decode(data).animation, note)
        #expect(animation.frames.map(\.bitmap.pixels) == quadrants.prefix(count).map(\.pixels), note)
        #expect(animation.shortfall == .damaged(decodedFrames: count), note)
    }

    @Test func everyCutKeepsTheWholeFramesBeforeItOrFailsWithATypedError() throws {
        let data = AnimatedPNGWriter.file(Self.chunks())
        var kept: [Int: Int] = [:]
        for length in 0..<data.count {
            do {
                let decoded = try Self.decode(data.prefix(length))
                guard let animation = decoded.animation else {
                    Issue.record("a cut at \(length) of \(data.count) decoded without its animation")
                    continue
                }
                let count = animation.frames.count
                kept[count, default: 0] += 1
                #expect(count >= 1 && animation.shortfall == .damaged(decodedFrames: count), "cut at \(length)")
                #expect(animation.frames.map(\.bitmap.pixels) == Self.quadrants.prefix(count).map(\.pixels), "cut at \(length)")
            } catch {
                guard case .decodingFailed = error else {
                    Issue.record("cut at \(length): \(error)")
                    continue
                }
            }
        }
        // A cut inside frame n keeps frames 0..<n; inside frame 1 the one frame kept is still an
        // animation, flagged.
        #expect((1...3).allSatisfy { kept[$0, default: 0] > 0 }, "\(kept)")
        #expect(try Self.decode(data).animation?.shortfall == nil)
    }

    @Test func aCutInsideAFramesDataKeepsTheFramesBeforeIt() throws {
        let data = AnimatedPNGWriter.file(Self.chunks())
        // 100 bytes before the end: inside frame 3's last fdAT, which holds some 290 bytes before IEND's 12.
        try Self.expectFramesBefore(3, in: data.prefix(data.count - 100), "cut inside frame 3's data")
    }

    @Test func randomFieldsWithValidCRCsNeverCrash() throws {
        // 1,500 files, each with one byte of one chunk's data set at random and the CRCs made
        // right, so the damage reaches the fields (sizes, offsets, sequence numbers, counts,
        // bit depths, the zlib data) rather than stopping at a CRC.
        let original = Self.chunks()
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let context = ImageDecodingContext(format: .png, thumbnail: .init(maxPixelSize: 8), maxPixelCount: 1_000_000)
        for trial in 0..<1500 {
            var chunks = original
            let candidates = chunks.indices.filter { !chunks[$0].data.isEmpty }
            let chunk = candidates[next(candidates.count)]
            let byte = next(chunks[chunk].data.count)
            chunks[chunk].data[byte] = UInt8(next(256))
            let note = "trial \(trial): \(chunks[chunk].type) byte \(byte) = \(chunks[chunk].data[byte])"
            do {
                let decoded = try VipsImageDecoder().decodeBitmap(AnimatedPNGWriter.file(chunks), context: context)
                #expect(decoded.pixels.count == decoded.width * decoded.height * 4 && max(decoded.width, decoded.height) <= 8, "\(note)")
                for frame in decoded.animation?.frames ?? [] {
                    #expect(frame.bitmap.width == decoded.width && frame.bitmap.height == decoded.height, "\(note)")
                }
            } catch {
                // Any typed error is an answer; an untyped one cannot reach here (typed throws).
                _ = error
            }
        }
    }

    @Test func aSequenceNumberOutOfOrderEndsTheAnimationThere() throws {
        let data = Self.changingFrameControl(2) { Self.setUInt32(99, at: 0, in: &$0) }
        try Self.expectFramesBefore(2, in: data, "fcTL 2 numbered 99")
        var chunks = Self.chunks()
        let secondFDAT = chunks.indices.filter { chunks[$0].type == "fdAT" }[1]
        Self.setUInt32(1000, at: 0, in: &chunks[secondFDAT].data)
        try Self.expectFramesBefore(1, in: AnimatedPNGWriter.file(chunks), "frame 1's second fdAT numbered 1000")
    }

    @Test func aRegionOutsideTheCanvasOrEmptyEndsTheAnimationThere() throws {
        let outside = Self.changingFrameControl(3) { Self.setUInt32(1, at: 12, in: &$0) }   // x 1: 17 columns
        try Self.expectFramesBefore(3, in: outside, "frame 3 one column past the canvas")
        let huge = Self.changingFrameControl(2) { Self.setUInt32(.max, at: 16, in: &$0) }   // y 2^32 − 1
        try Self.expectFramesBefore(2, in: huge, "frame 2 at y 2^32 − 1")
        let empty = Self.changingFrameControl(1) { Self.setUInt32(0, at: 4, in: &$0) }      // width 0
        try Self.expectFramesBefore(1, in: empty, "frame 1 of width 0")
    }

    @Test func aDamagedFirstFrameIsATypedError() throws {
        let offset = Self.changingFrameControl(0) { Self.setUInt32(3, at: 12, in: &$0) }
        #expect(throws: ImagePipelineError.self) { try Self.decode(offset) }
        var chunks = Self.chunks()
        let idat = chunks.firstIndex { $0.type == "IDAT" }!
        chunks[idat].data[3] ^= 0xFF   // a stored block's length, no longer its complement's: the stream is broken
        #expect(throws: ImagePipelineError.self) { try Self.decode(AnimatedPNGWriter.file(chunks)) }
    }

    @Test func aBadCRCEndsTheAnimationThere() throws {
        var data = [UInt8](AnimatedPNGWriter.file(Self.chunks()))
        // The last byte before IEND is the CRC of frame 3's last fdAT.
        data[data.count - 13] ^= 0x01
        try Self.expectFramesBefore(3, in: Data(data), "a CRC flipped in frame 3")
    }

    @Test func aFrameCountOfTwoToThe31IsTheFramesThereFlagged() throws {
        var chunks = Self.chunks()
        let acTL = chunks.firstIndex { $0.type == "acTL" }!
        Self.setUInt32(1 << 31, at: 0, in: &chunks[acTL].data)
        try Self.expectFramesBefore(4, in: AnimatedPNGWriter.file(chunks), "acTL declares 2^31 frames")
        // Fewer declared than present: the frames past the count are not the animation's.
        Self.setUInt32(2, at: 0, in: &chunks[acTL].data)
        try Self.expectFramesBefore(2, in: AnimatedPNGWriter.file(chunks), "acTL declares 2 frames")
    }

    @Test func theLongestDelaysAndAnUnknownDisposalAreHandled() throws {
        let longest = Self.changingFrameControl(1) { $0[20] = 0xFF; $0[21] = 0xFF; $0[22] = 0; $0[23] = 1 }
        let animation = try #require(try Self.decode(longest).animation)
        #expect(animation.frames.map(\.duration) == [0.1, 65_535, 0.1, 0.1])
        let unknown = Self.changingFrameControl(2) { $0[24] = 7 }
        try Self.expectFramesBefore(2, in: unknown, "dispose_op 7")
    }
}
#endif
