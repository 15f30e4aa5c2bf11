import Foundation

/// Writes animated GIFs of region frames with a 4-colour palette, for tests, benchmarks and
/// served routes: long animations at a large canvas (300 frames of 800×600) in a few MB, with
/// no encoder library and nothing held but the bytes written.
///
/// The image data uses literal LZW codes only (a clear code before every two pixels keeps the
/// codes 3 bits wide), so the files are about 0.56 bytes a pixel of the regions they draw.
///
/// ```swift
/// let gif = AnimatedGIFWriter.movingSquare(width: 800, height: 600, frames: 300)
/// ```
public struct AnimatedGIFWriter: Sendable {
    /// One frame: a region of palette indices, where it goes, how long it shows and how it is
    /// disposed of (1: left, 2: background, 3: previous).
    public struct Frame: Sendable {
        /// Where the region goes on the canvas (its top-left corner) and its size, in pixels.
        public var x: Int, y: Int, width: Int, height: Int
        /// `width × height` indices into the palette (0–3).
        public var indices: [UInt8]
        /// The delay in hundredths of a second.
        public var centiseconds: UInt16
        /// The disposal method: 1 leaves the frame, 2 clears its region, 3 restores it.
        public var disposal: UInt8
        /// The index that leaves the canvas beneath showing, if any.
        public var transparentIndex: UInt8?

        /// Creates a frame; by default shown for 0.1 s, left as drawn, with no transparent index.
        public init(x: Int, y: Int, width: Int, height: Int, indices: [UInt8], centiseconds: UInt16 = 10, disposal: UInt8 = 1,
                    transparentIndex: UInt8? = nil) {
            precondition(indices.count == width * height && indices.allSatisfy { $0 < 4 })
            self.x = x
            self.y = y
            self.width = width
            self.height = height
            self.indices = indices
            self.centiseconds = centiseconds
            self.disposal = disposal
            self.transparentIndex = transparentIndex
        }
    }

    /// The canvas size.
    public var width: Int, height: Int
    /// Four colours, RGB.
    public var palette: [(UInt8, UInt8, UInt8)]
    /// How many times the animation plays; 0 forever.
    public var loopCount: UInt16

    /// A writer of a `width` × `height` canvas with `palette` (4 colours).
    public init(width: Int, height: Int, palette: [(UInt8, UInt8, UInt8)] = [(255, 255, 255), (220, 30, 30), (30, 160, 40), (20, 40, 200)],
                loopCount: UInt16 = 0) {
        precondition(palette.count == 4 && width <= 0xFFFF && height <= 0xFFFF)
        self.width = width
        self.height = height
        self.palette = palette
        self.loopCount = loopCount
    }

    /// The file of `frames`, in order.
    public func data(_ frames: [Frame]) -> Data {
        var gif: [UInt8] = Array("GIF89a".utf8) + Self.le(width) + Self.le(height) + [0xF1, 0, 0]
        for colour in palette { gif += [colour.0, colour.1, colour.2] }
        gif += [0x21, 0xFF, 0x0B] + Array("NETSCAPE2.0".utf8) + [0x03, 0x01] + Self.le(Int(loopCount)) + [0x00]
        for frame in frames {
            let packed = frame.disposal << 2 | (frame.transparentIndex == nil ? 0 : 1)
            gif += [0x21, 0xF9, 0x04, packed] + Self.le(Int(frame.centiseconds)) + [frame.transparentIndex ?? 0, 0x00]
            gif += [0x2C] + Self.le(frame.x) + Self.le(frame.y) + Self.le(frame.width) + Self.le(frame.height) + [0x00]
            gif += [0x02]                                            // LZW minimum code size
            let lzw = Self.literalLZW(frame.indices)
            var index = 0
            while index < lzw.count {
                let count = min(255, lzw.count - index)
                gif += [UInt8(count)] + lzw[index..<index + count]
                index += count
            }
            gif += [0x00]
        }
        gif += [0x3B]
        return Data(gif)
    }

    /// `frames` frames on a `width` × `height` canvas: the first fills it with stripes, each
    /// after it draws a square of a quarter of the shorter side, moving along a diagonal, left
    /// in place; every frame shows for `centiseconds`.
    public static func movingSquare(width: Int, height: Int, frames: Int, centiseconds: UInt16 = 4) -> Data {
        let writer = AnimatedGIFWriter(width: width, height: height)
        let side = max(1, min(width, height) / 4)
        var list = [Frame(x: 0, y: 0, width: width, height: height,
                          indices: (0..<width * height).map { UInt8(($0 / width / 8) % 2) }, centiseconds: centiseconds)]
        for index in 1..<max(1, frames) {
            let x = (index * 7) % max(1, width - side), y = (index * 5) % max(1, height - side)
            list.append(Frame(x: x, y: y, width: side, height: side,
                              indices: [UInt8](repeating: UInt8(1 + index % 3), count: side * side), centiseconds: centiseconds))
        }
        return writer.data(list)
    }

    private static func le(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }

    /// LZW codes that are all literals: a clear code before every two pixels keeps the code
    /// width at 3 bits, so no dictionary entry is ever used.
    private static func literalLZW(_ indices: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(indices.count * 3 / 4 + 8)
        var buffer: UInt32 = 0, bits: UInt32 = 0
        func put(_ code: UInt32) {
            buffer |= code << bits
            bits += 3
            while bits >= 8 { bytes.append(UInt8(buffer & 0xFF)); buffer >>= 8; bits -= 8 }
        }
        for (i, index) in indices.enumerated() {
            if i % 2 == 0 { put(4) }                                 // clear
            put(UInt32(index))
        }
        put(5)                                                       // end of information
        if bits > 0 { bytes.append(UInt8(buffer & 0xFF)) }
        return bytes
    }
}
