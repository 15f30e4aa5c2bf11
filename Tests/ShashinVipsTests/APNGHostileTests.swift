// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import CVips
import Foundation
import ImageServer
import ShashinCore
import ShashinVips
import Testing

/// APNGs shaped to cost far more work than their size: the chunks every frame repeats, frame
/// counts in the hundreds of thousands, data chunks where the specification allows none.
@Suite struct APNGHostile {
    typealias Frame = AnimatedPNGWriter.Frame
    typealias Chunk = AnimatedPNGWriter.Chunk
    static let quadrants = AnimatedImages.quadrantFrames(count: 4)

    static func decode(_ data: Data, _ context: ImageDecodingContext = .init(format: .png)) throws(ImagePipelineError) -> Bitmap {
        try VipsImageDecoder().decodeBitmap(data, context: context)
    }

    /// `count` frames of one pixel on a 1×1 canvas, with `extra` inserted after `acTL`.
    static func tinyFrames(_ count: Int, extra: [Chunk] = []) -> [Chunk] {
        var writer = AnimatedPNGWriter(width: 1, height: 1, plays: 0)
        writer.frames = Array(repeating: Frame(image: AnimatedFiles.solid(width: 1, height: 1, 255, 0, 0)), count: count)
        var chunks = writer.chunks()
        chunks.insert(contentsOf: extra, at: 2)
        return chunks
    }

    @Test func anFdATAfterTheDefaultImagesIDATIsRefused() throws {
        // Frame 1's fcTL taken out and the sequence numbers after it closed up: frame 1's fdATs
        // follow frame 0's IDATs, numbered as if they were frame 0's.
        var writer = AnimatedPNGWriter(width: 16, height: 12, plays: 0)
        writer.frames = Self.quadrants.map { Frame(image: $0) }
        var chunks = writer.chunks()
        let removed = chunks.indices.filter { chunks[$0].type == "fcTL" }[1]
        chunks.remove(at: removed)
        for index in removed..<chunks.count where chunks[index].type == "fcTL" || chunks[index].type == "fdAT" {
            let sequence = chunks[index].data.prefix(4).reduce(0) { $0 << 8 | UInt32($1) } - 1
            for i in 0..<4 { chunks[index].data[i] = UInt8(truncatingIfNeeded: sequence >> (24 - 8 * UInt32(i))) }
        }
        let animation = try #require(try Self.decode(AnimatedPNGWriter.file(chunks)).animation)
        #expect(animation.frames.map(\.bitmap.pixels) == [Self.quadrants[0].pixels])
        #expect(animation.shortfall == .damaged(decodedFrames: 1))
    }

    @Test func aStillPNGCutInsideAnFdATChunkIsRefusedAsTruncated() throws {
        // No acTL: the chunk is not a frame's, and a still PNG's chunks must be whole.
        var writer = AnimatedPNGWriter(width: 16, height: 12, plays: 0)
        writer.frames = [Frame(image: Self.quadrants[0])]
        var chunks = writer.chunks().filter { $0.type != "acTL" && $0.type != "fcTL" && $0.type != "IEND" }
        chunks.append(Chunk(type: "fdAT", data: [0, 0, 0, 1] + [UInt8](repeating: 7, count: 100)))
        let data = AnimatedPNGWriter.file(chunks).dropLast(50)
        do {
            let decoded = try Self.decode(Data(data))
            Issue.record("decoded \(decoded.width)×\(decoded.height)")
        } catch {
            guard case .decodingFailed(_, let reason) = error else { throw error }
            #expect(reason.contains("fdAT chunk declares"), "\(reason)")
        }
    }
}
#endif
