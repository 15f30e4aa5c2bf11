import CImageKernels
import CZlib

/// The frame layout of an animated PNG, read from its chunk list (lengths, types, the small
/// `acTL` and `fcTL` chunks and CRCs; no pixel data is inflated).
///
/// An APNG is a PNG whose `acTL` chunk, before the first `IDAT`, declares the frame count and
/// how often the animation plays. Each frame has an `fcTL` (its region of the canvas, delay,
/// disposal and blending) followed by its image data: the `IDAT`s when that `fcTL` precedes
/// them (the default image is then frame 0), otherwise `fdAT`s, which are `IDAT` data behind a
/// sequence number. `fcTL` and `fdAT` sequence numbers count up from 0 without gaps.
///
/// The walk keeps the frames whose data is complete and valid, in order, and stops at the first
/// defect (the data ending, a bad CRC, a sequence number out of order, a region outside the
/// canvas, an empty frame, more frames than declared), saying what it was: the frames before it
/// are what a damaged file still shows.
struct APNGStructure {
    /// How a frame's region is left before the next frame is drawn.
    enum Disposal: UInt8 {
        /// As drawn.
        case none = 0
        /// Cleared to transparent black.
        case background = 1
        /// Restored to what it held before the frame was drawn.
        case previous = 2
    }

    /// How a frame's pixels meet the canvas.
    enum Blending: UInt8 {
        /// They replace the region, alpha included.
        case source = 0
        /// They are composed over it by their alpha.
        case over = 1
    }

    /// One frame: where it goes, how long it shows, and where its compressed data lies.
    struct Frame {
        var x: Int, y: Int, width: Int, height: Int
        var delayNumerator: Int, delayDenominator: Int
        var disposal: Disposal
        var blending: Blending
        /// The zlib data of the frame, in order: `IDAT` contents, or `fdAT` contents after
        /// their sequence numbers.
        var data: [Range<Int>] = []

        /// Seconds the frame shows: a denominator of 0 means hundredths, as the specification
        /// says. A delay of 0 stays 0, as for a GIF (players commonly show it for 0.1 s).
        var duration: Double { Double(delayNumerator) / Double(delayDenominator == 0 ? 100 : delayDenominator) }
    }

    /// The canvas size, from `IHDR`.
    var width = 0, height = 0
    /// `IHDR`'s bit depth, colour type, compression, filter and interlace method, as written.
    var pixelFormat: [UInt8] = []
    /// Whole chunks (length to CRC) before the first `IDAT` that every frame's pixels depend
    /// on: `PLTE`, `tRNS`, `gAMA`, `cHRM`, `sRGB`, `iCCP`, `sBIT`.
    /// At most one of each type, `sharedByteLimit` bytes in all (see `repeatedBytesPerFrame`).
    var sharedChunks: [Range<Int>] = []
    /// Bytes every frame's decode copies and parses again: the shared chunks whole, plus the
    /// `iCCP` profile inflated (libpng inflates it once per frame). A profile whose stream is
    /// broken counts as `PNGChunkGuard.perChunkLimit`, the most libpng could inflate from it.
    var repeatedBytesPerFrame = 0
    /// 1 MB of shared chunks at most, copied into every frame's PNG: `PLTE`, `tRNS` and the
    /// small colour chunks take under 1.2 KB together, and the largest real ICC profiles
    /// (printer profiles with big tables) are under 1 MB even uncompressed. More is refused as
    /// a defect before the first frame.
    static let sharedByteLimit = 1 << 20
    /// Frames the `acTL` declares.
    var declaredFrames = 0
    /// How many times the animation plays; 0 forever.
    var plays = 0
    /// Whether the default image (`IDAT`) is frame 0.
    var defaultImageIsFirstFrame = false
    /// The complete, valid frames before any defect; at most `frameLimit` of them are kept.
    var frames: [Frame] = []
    /// Complete, valid frames found, counting those past `frameLimit` that were not kept.
    var frameCount = 0
    /// What stopped the walk before the declared frames were all read; `nil` when they were.
    var defect: String?

    /// Whether `bytes` (a PNG) is animated: an `acTL` chunk comes before the first `IDAT`.
    static func isAnimated(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 8
        while offset + 8 <= bytes.count {
            let length = Int(uint32(bytes, offset)), type = uint32(bytes, offset + 4)
            if type == Chunk.acTL { return true }
            if type == Chunk.IDAT || type == Chunk.IEND { return false }
            guard length <= bytes.count - offset - 12 else { return false }
            offset += 12 + length
        }
        return false
    }

    /// Reads the frame layout of `bytes`, an APNG (see `isAnimated`). Keeps at most
    /// `frameLimit` frames' layouts, counting the rest: a file of a million tiny frames costs
    /// a count, not a million layouts, and the budgets refuse it from the count.
    static func read(_ bytes: UnsafeRawBufferPointer, frameLimit: Int) -> APNGStructure {
        var structure = APNGStructure()
        structure.walk(bytes, frameLimit: frameLimit)
        return structure
    }

    private mutating func walk(_ bytes: UnsafeRawBufferPointer, frameLimit: Int) {
        var offset = 8
        var nextSequence: UInt32 = 0
        var current: Frame?
        var seenIDAT = false, seenIHDR = false, idatEnded = false
        var sharedTypes: Set<UInt32> = []
        // Keeps `current` once its data is known to be whole (another fcTL or IEND follows).
        func finish(_ frame: Frame?) -> String? {
            guard let frame else { return nil }
            if frame.data.isEmpty { return "frame \(frameCount) has no image data" }
            frameCount += 1
            if frames.count < frameLimit { frames.append(frame) }
            return nil
        }
        while true {
            guard offset + 12 <= bytes.count else {
                defect = "the data ends after frame \(frameCount) (no IEND)"
                return
            }
            let length = Int(Self.uint32(bytes, offset)), type = Self.uint32(bytes, offset + 4)
            let dataStart = offset + 8
            guard length <= bytes.count - dataStart - 4 else {
                defect = "the data ends inside the \(Self.name(type)) chunk after frame \(frameCount)"
                return
            }
            let data = UnsafeRawBufferPointer(rebasing: bytes[dataStart..<dataStart + length])
            let storedCRC = Self.uint32(bytes, dataStart + length)
            let needsCRC = [Chunk.IHDR, Chunk.acTL, Chunk.fcTL, Chunk.fdAT, Chunk.IDAT].contains(type)
            if needsCRC, storedCRC != Self.crc(bytes, from: offset + 4, count: length + 4) {
                defect = "the \(Self.name(type)) chunk after frame \(frameCount) fails its CRC"
                return
            }
            if type != Chunk.IDAT, seenIDAT { idatEnded = true }
            switch type {
            case Chunk.IHDR where !seenIHDR && length == 13:
                seenIHDR = true
                width = Int(Self.uint32(data, 0))
                height = Int(Self.uint32(data, 4))
                pixelFormat = Array(data[8..<13])
            case Chunk.acTL where !seenIDAT && length == 8:
                declaredFrames = Int(Self.uint32(data, 0))
                plays = Int(Self.uint32(data, 4))
            case Chunk.fcTL:
                if let problem = finish(current) { defect = problem; return }
                current = nil
                guard frameCount < declaredFrames else {
                    defect = "more frames than the \(declaredFrames) declared"
                    return
                }
                guard length == 26, Self.uint32(data, 0) == nextSequence else {
                    defect = length == 26 ? "frame \(frameCount)'s sequence number is \(Self.uint32(data, 0)), not \(nextSequence)"
                        : "frame \(frameCount)'s fcTL chunk is \(length) bytes, not 26"
                    return
                }
                nextSequence += 1
                switch frameControl(data, isFirst: frameCount == 0, beforeIDAT: !seenIDAT) {
                case .success(let frame):
                    current = frame
                    if !seenIDAT { defaultImageIsFirstFrame = true }
                case .failure(let problem):
                    defect = "frame \(frameCount): \(problem.reason)"
                    return
                }
            case Chunk.IDAT:
                if idatEnded {
                    defect = "IDAT chunks are not consecutive"
                    return
                }
                seenIDAT = true
                if defaultImageIsFirstFrame, frameCount == 0 { current?.data.append(dataStart..<dataStart + length) }
            case Chunk.fdAT:
                // The default image's frame is its IDATs alone: it ends at the next fcTL.
                if defaultImageIsFirstFrame, frameCount == 0, seenIDAT {
                    if let problem = finish(current) { defect = problem; return }
                    defect = "an fdAT chunk follows the default image's IDAT without an fcTL"
                    return
                }
                guard length >= 4, Self.uint32(data, 0) == nextSequence else {
                    defect = length >= 4 ? "frame \(frameCount)'s fdAT sequence number is \(Self.uint32(data, 0)), not \(nextSequence)"
                        : "frame \(frameCount)'s fdAT chunk is shorter than its sequence number"
                    return
                }
                guard current != nil, seenIDAT else {
                    defect = "an fdAT chunk belongs to no frame"
                    return
                }
                nextSequence &+= 1
                current?.data.append(dataStart + 4..<dataStart + length)
            case Chunk.IEND:
                if let problem = finish(current) { defect = problem; return }
                if frameCount < declaredFrames { defect = "the file ends after \(frameCount) of the \(declaredFrames) frames declared" }
                return
            case let shared where !seenIDAT && Chunk.shared.contains(shared):
                // The specification allows one of each; every frame would repeat each copy.
                guard sharedTypes.insert(shared).inserted else {
                    defect = "a second \(Self.name(shared)) chunk"
                    return
                }
                let chunk = offset..<dataStart + length + 4
                guard sharedChunks.reduce(chunk.count, { $0 + $1.count }) <= Self.sharedByteLimit else {
                    defect = "the chunks every frame repeats (PLTE, tRNS, iCCP and the like) hold more than \(Self.sharedByteLimit >> 20) MB"
                    return
                }
                sharedChunks.append(chunk)
                repeatedBytesPerFrame += chunk.count
                if shared == Chunk.iCCP { repeatedBytesPerFrame += Self.inflatedProfileSize(data) }
            default:
                break
            }
            guard seenIHDR else {
                defect = "the first chunk is not IHDR"
                return
            }
            offset = dataStart + length + 4
        }
    }

    struct Problem: Error { let reason: String }

    /// The frame an `fcTL` describes, checked against the canvas and the specification.
    private func frameControl(_ data: UnsafeRawBufferPointer, isFirst: Bool, beforeIDAT: Bool) -> Result<Frame, Problem> {
        let w = Int(Self.uint32(data, 4)), h = Int(Self.uint32(data, 8))
        let x = Int(Self.uint32(data, 12)), y = Int(Self.uint32(data, 16))
        guard w > 0, h > 0 else { return .failure(Problem(reason: "an empty region (\(w)×\(h))")) }
        // Each value is below 2^32, so the sums cannot overflow an Int.
        guard x + w <= width, y + h <= height else {
            return .failure(Problem(reason: "the region \(w)×\(h) at (\(x), \(y)) leaves the \(width)×\(height) canvas"))
        }
        if beforeIDAT, x != 0 || y != 0 || w != width || h != height {
            return .failure(Problem(reason: "the default image's frame must fill the canvas"))
        }
        guard let disposal = Disposal(rawValue: data[24]), let blending = Blending(rawValue: data[25]) else {
            return .failure(Problem(reason: "unknown dispose_op \(data[24]) or blend_op \(data[25])"))
        }
        // On the first frame there is nothing to restore: PREVIOUS acts as BACKGROUND.
        return .success(Frame(x: x, y: y, width: w, height: h,
                              delayNumerator: Int(data[20]) << 8 | Int(data[21]), delayDenominator: Int(data[22]) << 8 | Int(data[23]),
                              disposal: isFirst && disposal == .previous ? .background : disposal, blending: blending))
    }

    /// Chunk types as big-endian 32-bit numbers.
    enum Chunk {
        static let IHDR = code("IHDR"), IDAT = code("IDAT"), IEND = code("IEND")
        static let acTL = code("acTL"), fcTL = code("fcTL"), fdAT = code("fdAT"), iCCP = code("iCCP")
        static let shared: Set<UInt32> = Set(["PLTE", "tRNS", "gAMA", "cHRM", "sRGB", "iCCP", "sBIT"].map(code))
        static func code(_ name: String) -> UInt32 { name.utf8.reduce(0) { $0 << 8 | UInt32($1) } }
    }

    /// How far an `iCCP` chunk's profile inflates, up to `PNGChunkGuard.perChunkLimit` (the
    /// guard refuses more); a broken stream counts as the limit, a chunk without a stream as 0.
    private static func inflatedProfileSize(_ data: UnsafeRawBufferPointer) -> Int {
        let limit = PNGChunkGuard.perChunkLimit
        guard let stream = PNGChunkGuard.compressedStream(of: "iCCP", in: data) else { return 0 }
        let size = Int(shashin_zlib_inflated_size(stream.baseAddress, stream.count, limit))
        return size < 0 ? limit : min(size, limit)
    }

    static func name(_ type: UInt32) -> String {
        PNGChunkGuard.printable((0..<4).map { UInt8(truncatingIfNeeded: type >> (24 - 8 * UInt32($0))) })
    }

    /// The big-endian 32-bit number at `offset` (PNG's lengths, types and fields).
    static func uint32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    /// zlib's CRC-32 of `count` bytes at `start`, fed in pieces zlib's `uInt` can hold.
    static func crc(_ bytes: UnsafeRawBufferPointer, from start: Int, count: Int) -> UInt32 {
        var crc = crc32(0, nil, 0)
        var offset = start
        while offset < start + count {
            let piece = min(start + count - offset, 1 << 30)
            crc = crc32(crc, bytes.baseAddress!.advanced(by: offset).assumingMemoryBound(to: UInt8.self), uInt(piece))
            offset += piece
        }
        return UInt32(truncatingIfNeeded: crc)
    }
}
