// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ImageServer
import ShashinCore
import ShashinVips
import Testing

/// APNG frames that update a region of the canvas: each decoded frame is the whole canvas,
/// composed as the `fcTL`'s `dispose_op` and `blend_op` say, pixel for pixel.
@Suite struct APNGComposition {
    typealias Frame = AnimatedPNGWriter.Frame
    static let red: [UInt8] = [255, 0, 0, 255], blue: [UInt8] = [0, 0, 255, 255], green: [UInt8] = [0, 255, 0, 255]
    static let clear: [UInt8] = [0, 0, 0, 0], halfBlue: [UInt8] = [0, 0, 255, 128]

    static func region(_ width: Int, _ height: Int, _ pixels: [[UInt8]]) -> Bitmap {
        Bitmap(width: width, height: height, pixels: pixels.flatMap { $0 })
    }

    /// Names for the colours the frames hold; any other pixel is written out.
    static func name(_ p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) -> String {
        switch [p.r, p.g, p.b, p.a] {
        case red: "R"
        case blue: "B"
        case green: "G"
        case clear: "-"
        case halfBlue: "b"
        default: "(\(p.r),\(p.g),\(p.b),\(p.a))"
        }
    }

    static func picture(_ bitmap: Bitmap) -> [String] {
        (0..<bitmap.height).map { y in (0..<bitmap.width).map { x in name(bitmap.pixel(x: x, y: y)) }.joined(separator: " ") }
    }

    static func decode(_ frames: [Frame], width: Int, height: Int) throws -> [Bitmap] {
        var writer = AnimatedPNGWriter(width: width, height: height, plays: 0)
        writer.frames = frames
        let animation = try #require(try VipsImageDecoder().decodeBitmap(writer.data(), context: .init(format: .png)).animation)
        #expect(animation.frames.count == frames.count && animation.shortfall == nil)
        return animation.frames.map(\.bitmap)
    }

    @Test func disposalAndBlendingComposeEachFrame() throws {
        let (r, b, g, c, h) = (Self.red, Self.blue, Self.green, Self.clear, Self.halfBlue)
        let frames = [
            Frame(image: Self.region(6, 4, Array(repeating: r, count: 24))),
            // Blue top-left, then cleared to transparent black (BACKGROUND).
            Frame(image: Self.region(2, 2, [b, b, b, b]), disposal: 1),
            // Green over the canvas with transparent holes (OVER), then restored (PREVIOUS).
            Frame(image: Self.region(2, 2, [g, c, c, g]), x: 4, y: 2, disposal: 2, blending: 1),
            // SOURCE: its transparent and half-transparent pixels replace what is under them.
            Frame(image: Self.region(2, 2, [b, c, h, b]), x: 2, y: 1),
            // Half-transparent blue OVER red, and OVER the half-transparent blue left before.
            Frame(image: Self.region(3, 1, [h, h, h]), x: 0, y: 2, blending: 1),
        ]
        let decoded = try Self.decode(frames, width: 6, height: 4)
        // Over opaque red: colour (0·128 + 255·127) / 255 = 127 red, 255·128 / 255 = 128 blue,
        // alpha 255. Over (0,0,255,128): alpha 128 + 128·127/255 = 191.75 → 192, colour blue.
        let mixed = "(127,0,128,255)", deeper = "(0,0,255,192)"
        let expected: [[String]] = [
            ["R R R R R R", "R R R R R R", "R R R R R R", "R R R R R R"],
            ["B B R R R R", "B B R R R R", "R R R R R R", "R R R R R R"],
            ["- - R R R R", "- - R R R R", "R R R R G R", "R R R R R G"],
            ["- - R R R R", "- - B - R R", "R R b B R R", "R R R R R R"],
            ["- - R R R R", "- - B - R R", "\(mixed) \(mixed) \(deeper) B R R", "R R R R R R"],
        ]
        for (index, (frame, picture)) in zip(decoded, expected).enumerated() {
            #expect(Self.picture(frame) == picture, "frame \(index)")
        }
    }

    @Test func previousOnTheFirstFrameClearsLikeBackground() throws {
        // The first frame has nothing before it to restore: PREVIOUS leaves the canvas clear.
        let frames = [
            Frame(image: Self.region(2, 2, Array(repeating: Self.red, count: 4)), disposal: 2),
            Frame(image: Self.region(1, 1, [Self.blue]), x: 1, y: 1, blending: 1),
        ]
        let decoded = try Self.decode(frames, width: 2, height: 2)
        #expect(Self.picture(decoded[0]) == ["R R", "R R"])
        #expect(Self.picture(decoded[1]) == ["- -", "- B"])
    }

    @Test func previousRestoresAcrossSeveralFrames() throws {
        // Frame 1 is drawn and undone (PREVIOUS); frame 2 sees frame 0's canvas, not frame 1's.
        let frames = [
            Frame(image: Self.region(3, 1, [Self.red, Self.green, Self.red])),
            Frame(image: Self.region(3, 1, [Self.blue, Self.blue, Self.blue]), disposal: 2),
            Frame(image: Self.region(1, 1, [Self.clear]), x: 2, y: 0, blending: 1),
        ]
        let decoded = try Self.decode(frames, width: 3, height: 1)
        #expect(decoded.map { Self.picture($0) } == [["R G R"], ["B B B"], ["R G R"]])
    }
}
#endif
