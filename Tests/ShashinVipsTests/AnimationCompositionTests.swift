// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ShashinCore
import ShashinVips
import Testing

/// Frames that update only a region of the canvas: each decoded frame is the whole canvas as a
/// player shows it, composed as the file's disposal and blending say.
@Suite struct AnimationComposition {
    static let palette: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 0, 255), (0, 255, 0), (255, 255, 255)]
    typealias Frame = CraftedFiles.GIFFrame

    /// Red canvas; blue square top-left (then restored to the background); green pixels with
    /// transparent holes bottom-right (then restored to what was before); blue square in the middle.
    static let gif = CraftedFiles.regionGIF(width: 6, height: 4, palette: palette, frames: [
        Frame(x: 0, y: 0, width: 6, height: 4, indices: [UInt8](repeating: 0, count: 24), disposal: 1),
        Frame(x: 0, y: 0, width: 2, height: 2, indices: [1, 1, 1, 1], disposal: 2, transparentIndex: 3),
        Frame(x: 4, y: 2, width: 2, height: 2, indices: [2, 3, 3, 2], disposal: 3, transparentIndex: 3, centiseconds: 20),
        Frame(x: 2, y: 1, width: 2, height: 2, indices: [1, 1, 1, 1], disposal: 1, centiseconds: 30),
    ])

    /// The colour a player shows at `(x, y)`: `nil` for transparent.
    static func colour(_ bitmap: Bitmap, _ x: Int, _ y: Int) -> String {
        let p = bitmap.pixel(x: x, y: y)
        if p.a == 0 { return "clear" }
        switch (p.r, p.g, p.b, p.a) {
        case (255, 0, 0, 255): return "red"
        case (0, 0, 255, 255): return "blue"
        case (0, 255, 0, 255): return "green"
        default: return "\(p)"
        }
    }

    static func picture(_ bitmap: Bitmap) -> [[String]] {
        (0..<bitmap.height).map { y in (0..<bitmap.width).map { x in colour(bitmap, x, y) } }
    }

    @Test func gifDisposalAndTransparencyComposeEachFrame() throws {
        let animation = try #require(try VipsImageDecoder().decodeBitmap(Self.gif, context: .init(format: .gif)).animation)
        #expect(animation.frames.count == 4)
        #expect(animation.frames.map(\.duration) == [0.1, 0.1, 0.2, 0.3])
        let r = "red", b = "blue", g = "green", c = "clear"
        let expected: [[[String]]] = [
            [[r, r, r, r, r, r], [r, r, r, r, r, r], [r, r, r, r, r, r], [r, r, r, r, r, r]],
            // Frame 1 draws blue over the top-left 2×2.
            [[b, b, r, r, r, r], [b, b, r, r, r, r], [r, r, r, r, r, r], [r, r, r, r, r, r]],
            // Frame 1's area is restored to the (transparent) background; frame 2 draws two
            // green pixels, its transparent ones leaving red showing.
            [[c, c, r, r, r, r], [c, c, r, r, r, r], [r, r, r, r, g, r], [r, r, r, r, r, g]],
            // Frame 2's area is restored to what was before it (red); frame 3 draws blue.
            [[c, c, r, r, r, r], [c, c, b, b, r, r], [r, r, b, b, r, r], [r, r, r, r, r, r]],
        ]
        for (index, (frame, picture)) in zip(animation.frames, expected).enumerated() {
            #expect(Self.picture(frame.bitmap) == picture, "frame \(index)")
        }
    }

    /// Frames that differ from the one before in a small square, some of it transparent: libwebp's
    /// animation encoder writes them as sub-frames that blend over (or replace) the canvas.
    static func movingSquareFrames(count: Int) -> [Bitmap] {
        (0..<count).map { frame in
            var pixels: [UInt8] = []
            for y in 0..<32 {
                for x in 0..<32 {
                    let inSquare = (frame * 6..<frame * 6 + 8).contains(x) && (8..<16).contains(y)
                    let hole = inSquare && x == frame * 6 + 3 && y == 11
                    pixels += hole ? [0, 0, 0, 0] : inSquare ? [0, 0, 255, 255] : [255, 0, 0, 255]
                }
            }
            return Bitmap(width: 32, height: 32, pixels: pixels)
        }
    }

    @Test func webpSubFramesBlendAndDisposeIntoWholeFrames() throws {
        let frames = Self.movingSquareFrames(count: 4)
        let data = try AnimatedFiles.make(.webp, frames: frames, delays: [70, 70, 70, 70], loop: 0)
        let rectangles = WebPFrames.rectangles(data)
        #expect(rectangles.count == 4)
        #expect(rectangles.dropFirst().contains { $0.width < 32 || $0.height < 32 }, "the encoder wrote sub-frames: \(rectangles)")
        let animation = try #require(try VipsImageDecoder().decodeBitmap(data, context: .init(format: .webp)).animation)
        #expect(animation.frames.count == 4)
        for (index, (frame, expected)) in zip(animation.frames, frames).enumerated() {
            let differing = (0..<expected.pixels.count / 4).filter { i in
                let a = Array(frame.bitmap.pixels[i * 4..<i * 4 + 4]), e = Array(expected.pixels[i * 4..<i * 4 + 4])
                return e[3] == 0 ? a[3] != 0 : a != e
            }
            #expect(differing.isEmpty, "frame \(index): \(differing.count) pixels differ, first at \(differing.first.map { ($0 % 32, $0 / 32) }.debugDescription)")
        }
    }
}

/// The frame rectangles of an animated WebP, read from its ANMF chunks.
enum WebPFrames {
    static func rectangles(_ data: Data) -> [(x: Int, y: Int, width: Int, height: Int)] {
        let bytes = [UInt8](data)
        func u24(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 }
        func u32(_ at: Int) -> Int { u24(at) | Int(bytes[at + 3]) << 24 }
        var rectangles: [(x: Int, y: Int, width: Int, height: Int)] = []
        var offset = 12
        while offset + 8 <= bytes.count {
            let tag = String(decoding: bytes[offset..<offset + 4], as: UTF8.self), size = u32(offset + 4)
            if tag == "ANMF", offset + 8 + 16 <= bytes.count {
                let p = offset + 8
                rectangles.append((u24(p) * 2, u24(p + 3) * 2, u24(p + 6) + 1, u24(p + 9) + 1))
            }
            offset += 8 + size + (size & 1)
        }
        return rectangles
    }
}
#endif
