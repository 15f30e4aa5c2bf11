// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ImageServer
import ShashinCore
@testable import ShashinVips
import Testing

/// GIFs with more than 255 colours on the canvas (local colour tables), and frames disposed of
/// to the background colour: what a saved canvas must write as several GIF frames, and restore
/// to the background rather than to transparent black.
enum ManyColourGIF {
    struct Frame {
        var x: Int, y: Int, width: Int, height: Int
        var disposal: UInt8
        var transparentIndex: UInt8?
        /// Shifts the frame's 256 colours, so that each frame draws colours of its own.
        var tint: Int
    }

    /// A `width` × `height` GIF (global colour table of 4, background index 2) of `frames`, each
    /// with a local table of 256 colours and index `(x + 3y + tint) % 256` at each pixel.
    static func make(width: Int, height: Int, frames: [Frame]) -> Data {
        func le(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
        var bytes: [UInt8] = Array("GIF89a".utf8) + le(width) + le(height) + [0xF1, 2, 0]
        bytes += [0, 0, 0, 255, 255, 255, 40, 90, 200, 250, 200, 0]
        for frame in frames {
            let packed: UInt8 = frame.disposal << 2 | (frame.transparentIndex == nil ? 0 : 1)
            bytes += [0x21, 0xF9, 0x04, packed, 5, 0, frame.transparentIndex ?? 0, 0]
            bytes += [0x2C] + le(frame.x) + le(frame.y) + le(frame.width) + le(frame.height) + [0x87]
            for entry in 0..<256 {
                let colour = (entry * 37 + frame.tint * 101) & 0xFF_FFFF
                bytes += [UInt8(colour & 0xFF), UInt8((colour >> 3) & 0xFF), UInt8((entry + frame.tint) & 0xFF)]
            }
            var indices: [UInt8] = []
            for y in 0..<frame.height { for x in 0..<frame.width { indices.append(UInt8((x + 3 * y + frame.tint) % 256)) } }
            indices.withUnsafeBufferPointer { GIFLZWEncoder.encode($0, into: &bytes) }
        }
        bytes.append(0x3B)
        return Data(bytes)
    }

    /// 300×12: the first frame's rows hold 256 colours each (a saved canvas cuts each row in two);
    /// then background disposal without a transparent index, transparency, restore-previous, and
    /// a whole-canvas frame cleared to transparent black.
    static let gif = make(width: 300, height: 12, frames: [
        Frame(x: 0, y: 0, width: 300, height: 12, disposal: 1, transparentIndex: nil, tint: 0),
        Frame(x: 5, y: 2, width: 40, height: 6, disposal: 2, transparentIndex: nil, tint: 1),
        Frame(x: 0, y: 4, width: 300, height: 3, disposal: 1, transparentIndex: 0, tint: 2),
        Frame(x: 100, y: 0, width: 60, height: 12, disposal: 3, transparentIndex: nil, tint: 3),
        Frame(x: 20, y: 1, width: 250, height: 10, disposal: 1, transparentIndex: 7, tint: 4),
        Frame(x: 0, y: 0, width: 300, height: 12, disposal: 2, transparentIndex: 9, tint: 5),
        Frame(x: 3, y: 3, width: 4, height: 4, disposal: 1, transparentIndex: nil, tint: 6),
        Frame(x: 280, y: 8, width: 30, height: 6, disposal: 1, transparentIndex: nil, tint: 7),
    ])
}

/// Reading a streamed animation out of order: from canvases saved on the way, the frames are
/// the whole decode's, pixel for pixel, and a seek decodes at most the interval between saved
/// canvases (counted, not timed).
@Suite struct StreamedAnimationSeeks {
    static func seeded(_ count: Int, below bound: Int, seed: UInt64) -> [Int] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % bound
        }
    }

    @Test(arguments: [1, 2, 3])
    func framesReadInAnyOrderMatchTheWholeDecode(interval: Int) async throws {
        let fixtures = try StreamedFixtures.all() + [("many-colour GIF", ManyColourGIF.gif),
                                                     ("moving square", AnimatedGIFWriter.movingSquare(width: 40, height: 30, frames: 24))]
        for (name, data) in fixtures {
            let whole = try #require(try StreamedFixtures.decode(data, .allFrames).animation, "\(name)")
            let source = try #require(try StreamedFixtures.decode(data, .frameSource).animation?.frameSource, "\(name)")
            let count = source.frameCount
            #expect(whole.frames.count == count, "\(name)")
            for capacity in [1, 2] {
                let buffer = AnimationFrameBuffer(source: source, capacity: capacity, checkpoints: AnimationCheckpoints(interval: interval))
                let order = Array(0..<count) + Self.seeded(4 * count, below: count, seed: UInt64(count * 10 + interval))
                for index in order {
                    let frame = try await buffer.frame(at: index)
                    #expect(frame.pixels == whole.frames[index].bitmap.pixels, "\(name), interval \(interval): frame \(index)")
                }
                // A canvas after every frame but those restoring the one before them (the WebP
                // reader saves none: it starts over).
                if interval == 1, !name.hasSuffix("WebP") {
                    #expect(!buffer.checkpointState.indices.isEmpty, "\(name): canvases were saved")
                }
            }
        }
    }

    @Test func aSavedCanvasOfManyColoursIsWrittenAsSeveralFrames() throws {
        let canvas = try #require(try StreamedFixtures.decode(ManyColourGIF.gif, .allFrames).animation?.frames[0].bitmap)
        let encoded = try #require(GIFCanvasFrames.encode(canvas))
        #expect(encoded.frameCount == 24, "each of the 12 rows of 256 colours in two parts: \(encoded.frameCount)")
        var pixels = canvas.pixels
        pixels[3] = 128
        let halfTransparent = Bitmap(width: canvas.width, height: canvas.height, pixels: pixels)
        #expect(GIFCanvasFrames.encode(halfTransparent) == nil, "a pixel neither opaque nor transparent black is not written")
    }

    /// The 300-frame GIF, each frame decoded once in order (no canvas saved: a playback that never
    /// seeks pays nothing); a seek back to frame 1, which starts over and starts the saving; the
    /// frames after it in order; then seeks to frames passed before each decode at most 16
    /// frames, and the canvas' one frame when they start from a saved one.
    @Test func aSeekIntoFramesPassedBeforeDecodesAtMostTheInterval() async throws {
        let gif = AnimatedGIFWriter.movingSquare(width: 64, height: 48, frames: 300)
        let source = try #require(try StreamedFixtures.decode(gif, .frameSource).animation?.frameSource)
        let buffer = AnimationFrameBuffer(source: source, capacity: 1, checkpoints: AnimationCheckpoints(interval: 16))
        let (_, firstPass) = try await StreamedFixtures.countingFrames {
            for index in 0..<300 { _ = try await buffer.frame(at: index) }
        }
        #expect(firstPass == 300)
        #expect(buffer.checkpointState.indices.isEmpty)
        let (_, secondPass) = try await StreamedFixtures.countingFrames {
            for index in 1..<300 { _ = try await buffer.frame(at: index) }
        }
        #expect(secondPass == 300, "frame 1 starts over (2 frames), then one frame a read")
        #expect(buffer.checkpointState.indices == Array(stride(from: 15, to: 300, by: 16)))
        var most = 0, total = 0
        for index in Self.seeded(200, below: 300, seed: 38) {
            let (_, decoded) = try await StreamedFixtures.countingFrames { _ = try await buffer.frame(at: index) }
            #expect(decoded <= 16 + 1, "frame \(index): \(decoded) frames decoded")
            most = max(most, decoded)
            total += decoded
        }
        print("300-frame GIF, 200 seeks after one pass: at most \(most) frames decoded a seek, \(total) in all; "
              + "canvases saved: \(buffer.checkpointState.indices.count), \(buffer.checkpointState.byteCount) bytes")
        // Without saved canvases a seek back to frame k decodes k + 1 frames: about 150 on average.
        #expect(total < 200 * 17)
    }
}
#endif
