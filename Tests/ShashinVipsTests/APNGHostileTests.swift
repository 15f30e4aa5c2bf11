// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import CZlib
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

    /// An `iCCP` chunk named "p" whose zlib stream is `stream`.
    static func iCCP(_ stream: [UInt8]) -> Chunk { Chunk(type: "iCCP", data: Array("p".utf8) + [0, 0] + stream) }

    /// A zlib stream of `count` empty stored blocks: `5 * count + 6` bytes that inflate to nothing.
    static func emptyStoredBlocks(_ count: Int) -> [UInt8] {
        [0x78, 0x01] + (0..<count).flatMap { [$0 == count - 1 ? 1 : 0, 0, 0, 0xFF, 0xFF] } + [0, 0, 0, 1]
    }

    /// A zlib stream of `count` zero bytes, compressed by zlib.
    static func zeros(_ count: Int) -> [UInt8] {
        let input = [UInt8](repeating: 0, count: count)
        var output = [UInt8](repeating: 0, count: Int(compressBound(uLong(count))))
        var length = uLongf(output.count)
        let status = compress2(&output, &length, input, uLong(count), 9)
        precondition(status == Z_OK)
        return Array(output.prefix(Int(length)))
    }

    @Test func aSecondCopyOfAChunkEveryFrameRepeatsIsRefused() throws {
        let gamma = Chunk(type: "gAMA", data: [0, 0, 0xB1, 0x8F])
        let once = AnimatedPNGWriter.file(Self.tinyFrames(3, extra: [gamma]))
        #expect(try Self.decode(once).animation?.frames.count == 3)
        let twice = AnimatedPNGWriter.file(Self.tinyFrames(3, extra: [gamma, gamma]))
        #expect(throws: ImagePipelineError.self) { try Self.decode(twice) }
    }

    @Test func sharedChunksOverOneMegabyteAreRefused() throws {
        // 1.2 MB of iCCP that inflates to nothing (PNGChunkGuard counts inflated bytes).
        let profile = Self.iCCP(Self.emptyStoredBlocks(240_000))
        let data = AnimatedPNGWriter.file(Self.tinyFrames(3, extra: [profile]))
        do {
            let decoded = try Self.decode(data)
            Issue.record("decoded: \(decoded.animation?.frames.count ?? 0) frames")
        } catch {
            guard case .decodingFailed(_, let reason) = error else { throw error }
            #expect(reason.contains("1 MB"), "\(reason)")
        }
    }

    @Test func aProfileEveryFrameInflatesIsChargedToThePixelBudget() throws {
        // A 4 KB iCCP inflating to 3 MB, parsed once per frame: 40 frames charge 120 MB, over 100 MP.
        let profile = Self.iCCP(Self.zeros(3 << 20))
        let data = AnimatedPNGWriter.file(Self.tinyFrames(40, extra: [profile]))
        let animation = try #require(try Self.decode(data).animation)
        guard case .overPixelBudget(let frames, let perFrame, let limit) = animation.shortfall else {
            Issue.record("shortfall \(String(describing: animation.shortfall)), \(animation.frames.count) frames")
            return
        }
        #expect(frames == 40 && perFrame > 3 << 20 && limit == ImageDecodingContext.defaultMaxPixelCount)
        #expect(animation.frames.isEmpty)
    }

    /// `tinyFrames(count)` as a file, written straight to bytes with zlib's CRC (the writer's
    /// chunk list would hold a few hundred thousand arrays).
    static func tinyFramesFile(_ count: Int) -> Data {
        let template = tinyFrames(2)
        let stream = template.first { $0.type == "IDAT" }!.data
        let control = template.first { $0.type == "fcTL" }!.data.dropFirst(4)
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes.reserveCapacity(count * (38 + 16 + stream.count) + 100)
        func bigEndian(_ value: Int) -> [UInt8] {
            [UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
        }
        func append(_ type: String, _ data: [UInt8]) {
            bytes += bigEndian(data.count)
            let start = bytes.count
            bytes += Array(type.utf8) + data
            let crc = bytes[start...].withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }
            bytes += bigEndian(Int(crc))
        }
        append("IHDR", template[0].data)
        append("acTL", bigEndian(count) + bigEndian(0))
        var sequence = 0
        for frame in 0..<count {
            append("fcTL", bigEndian(sequence) + control)
            sequence += 1
            if frame == 0 {
                append("IDAT", stream)
            } else {
                append("fdAT", bigEndian(sequence) + stream)
                sequence += 1
            }
        }
        append("IEND", [])
        return Data(bytes)
    }

    @Test func theFastFileIsTheWritersFile() {
        #expect(Self.tinyFramesFile(3) == AnimatedPNGWriter.file(Self.tinyFrames(3)))
    }

    @Test func twoHundredThousandTinyFramesAreCountedNotDecoded() throws {
        // 200,000 frames charged `minimumFramePixelCharge` each: 819 MP, over the 100 MP
        // default, so no frame is decoded and at most 24,415 layouts are kept.
        let data = Self.tinyFramesFile(200_000)
        let decoded = try Self.decode(data)
        let animation = try #require(decoded.animation)
        #expect(animation.frameCount == 200_000 && animation.frames.isEmpty)
        #expect(animation.shortfall == .overPixelBudget(frameCount: 200_000, pixelsPerFrame: ImageDecodingContext.minimumFramePixelCharge,
                                                        limit: ImageDecodingContext.defaultMaxPixelCount))
        #expect(decoded.pixel(x: 0, y: 0) == (255, 0, 0, 255))
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
