import Foundation
import ShashinCore

/// Writes animated PNGs (APNG) chunk by chunk, for tests and served routes: libvips writes no
/// APNG, and a decoder's tests need files whose every field they choose, damaged ones included.
///
/// Pixels are stored RGBA8 (colour type 6) or, with `usesPalette`, as palette indices with a
/// `PLTE` and `tRNS` shared by all frames. The zlib streams use stored (uncompressed) deflate
/// blocks, so no compressor is needed and the files are as large as their pixels.
///
/// ```swift
/// var writer = AnimatedPNGWriter(width: 4, height: 4, plays: 0)
/// writer.frames = [.init(image: red), .init(image: blue, x: 1, y: 1, disposal: 1, blending: 1)]
/// let data = writer.data()
/// ```
public struct AnimatedPNGWriter: Sendable {
    /// One frame: its pixels (the region's size), where they go, how long they show, and how
    /// they meet the canvas, as the `fcTL` chunk says them.
    public struct Frame: Sendable {
        /// The region's pixels, RGBA8.
        public var image: Bitmap
        /// The region's offset on the canvas.
        public var x: Int, y: Int
        /// The delay, `delayNumerator` / `delayDenominator` seconds (0 as denominator: hundredths).
        public var delayNumerator: UInt16, delayDenominator: UInt16
        /// `dispose_op`: 0 none, 1 background, 2 previous.
        public var disposal: UInt8
        /// `blend_op`: 0 source, 1 over.
        public var blending: UInt8

        /// Creates a frame; by default at the origin, shown for 0.1 s, left as drawn, replacing.
        public init(image: Bitmap, x: Int = 0, y: Int = 0, delayNumerator: UInt16 = 1, delayDenominator: UInt16 = 10,
                    disposal: UInt8 = 0, blending: UInt8 = 0) {
            self.image = image
            self.x = x
            self.y = y
            self.delayNumerator = delayNumerator
            self.delayDenominator = delayDenominator
            self.disposal = disposal
            self.blending = blending
        }
    }

    /// One chunk: its four-letter type and its data (the length and CRC are written around it).
    public struct Chunk: Sendable, Equatable {
        /// The four-letter type, such as `fcTL`.
        public var type: String
        /// The chunk's data, without its length, type or CRC.
        public var data: [UInt8]

        /// Creates a chunk.
        public init(type: String, data: [UInt8]) {
            self.type = type
            self.data = data
        }
    }

    /// The canvas size.
    public var width: Int, height: Int
    /// How many times the animation plays; 0 forever.
    public var plays: Int
    /// The frames, in order.
    public var frames: [Frame] = []
    /// A default image (`IDAT`) that is not part of the animation; `nil`: frame 0 is the default
    /// image, so it must fill the canvas.
    public var defaultImage: Bitmap?
    /// Frame data longer than this is split over several `IDAT`/`fdAT` chunks.
    public var maxChunkDataLength = 1 << 20
    /// Pixels stored as palette indices (every colour of every frame at most 256 in all).
    public var usesPalette = false

    /// Creates a writer for a `width` × `height` canvas played `plays` times (0: forever).
    public init(width: Int, height: Int, plays: Int) {
        self.width = width
        self.height = height
        self.plays = plays
    }

    /// The file's bytes.
    public func data() -> Data { Self.file(chunks()) }

    /// The file's chunks in order, from `IHDR` to `IEND`, for a test to change before `file`.
    public func chunks() -> [Chunk] {
        let palette = usesPalette ? Self.palette(of: frames.map(\.image) + [defaultImage].compactMap { $0 }) : []
        var chunks = [Chunk(type: "IHDR", data: Self.bigEndian(width) + Self.bigEndian(height) + [8, usesPalette ? 3 : 6, 0, 0, 0])]
        chunks.append(Chunk(type: "acTL", data: Self.bigEndian(frames.count) + Self.bigEndian(plays)))
        if usesPalette {
            chunks.append(Chunk(type: "PLTE", data: palette.flatMap { Array($0[0..<3]) }))
            chunks.append(Chunk(type: "tRNS", data: palette.map { $0[3] }))
        }
        var sequence = 0
        func frameData(_ image: Bitmap) -> [[UInt8]] {
            let stream = Self.zlibStored(Self.scanlines(image, palette: palette))
            return stride(from: 0, to: stream.count, by: maxChunkDataLength).map {
                Array(stream[$0..<min(stream.count, $0 + maxChunkDataLength)])
            }
        }
        if let defaultImage {
            chunks += frameData(defaultImage).map { Chunk(type: "IDAT", data: $0) }
        }
        for (index, frame) in frames.enumerated() {
            let control = Self.bigEndian(sequence) + Self.bigEndian(frame.image.width) + Self.bigEndian(frame.image.height)
                + Self.bigEndian(frame.x) + Self.bigEndian(frame.y)
                + [UInt8(frame.delayNumerator >> 8), UInt8(frame.delayNumerator & 0xFF),
                   UInt8(frame.delayDenominator >> 8), UInt8(frame.delayDenominator & 0xFF), frame.disposal, frame.blending]
            chunks.append(Chunk(type: "fcTL", data: control))
            sequence += 1
            for piece in frameData(frame.image) {
                if index == 0 && defaultImage == nil {
                    chunks.append(Chunk(type: "IDAT", data: piece))
                } else {
                    chunks.append(Chunk(type: "fdAT", data: Self.bigEndian(sequence) + piece))
                    sequence += 1
                }
            }
        }
        chunks.append(Chunk(type: "IEND", data: []))
        return chunks
    }

    /// A PNG file of `chunks`, each with its length and CRC.
    public static func file(_ chunks: [Chunk]) -> Data {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        for chunk in chunks {
            let typed = Array(chunk.type.utf8) + chunk.data
            bytes += bigEndian(chunk.data.count) + typed + bigEndian(Int(crc32(typed)))
        }
        return Data(bytes)
    }

    /// Every distinct RGBA colour in `images`, in first-seen order.
    private static func palette(of images: [Bitmap]) -> [[UInt8]] {
        var seen = Set<[UInt8]>(), colours: [[UInt8]] = []
        for image in images {
            for start in stride(from: 0, to: image.pixels.count, by: 4) {
                let colour = Array(image.pixels[start..<start + 4])
                if seen.insert(colour).inserted { colours.append(colour) }
            }
        }
        precondition(colours.count <= 256, "a palette holds at most 256 colours")
        return colours
    }

    /// The filtered scanlines of `image` (filter 0 on each row): RGBA, or indices into `palette`.
    private static func scanlines(_ image: Bitmap, palette: [[UInt8]]) -> [UInt8] {
        let index = Dictionary(uniqueKeysWithValues: palette.enumerated().map { ($1, UInt8($0)) })
        var bytes: [UInt8] = []
        for row in 0..<image.height {
            bytes.append(0)
            let rowPixels = image.pixels[row * image.width * 4..<(row + 1) * image.width * 4]
            if palette.isEmpty {
                bytes += rowPixels
            } else {
                bytes += stride(from: rowPixels.startIndex, to: rowPixels.endIndex, by: 4).map { index[Array(image.pixels[$0..<$0 + 4])]! }
            }
        }
        return bytes
    }

    /// A zlib stream of `bytes` in stored deflate blocks.
    private static func zlibStored(_ bytes: [UInt8]) -> [UInt8] {
        var stream: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, bytes.count - offset)
            let isLast = offset + length == bytes.count
            stream += [isLast ? 1 : 0, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            stream += bytes[offset..<offset + length]
            offset += length
        } while offset < bytes.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes { a = (a + UInt32(byte)) % 65_521; b = (b + a) % 65_521 }
        return stream + bigEndian(Int(b << 16 | a))
    }

    /// The CRC-32 of a PNG chunk's type and data (ISO 3309, as PNG uses it), for files built
    /// byte by byte here and in the decoder tests.
    package static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    private static func bigEndian(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
}
