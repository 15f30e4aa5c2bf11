// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ImageServer
import ShashinCore
import ShashinVips
import Testing

/// Animated PNG: every frame decoded (libvips alone reads only the default image), with the
/// `fcTL` delays and the `acTL` play count; the first frame is the image.
@Suite struct APNGDecoding {
    typealias Frame = AnimatedPNGWriter.Frame
    static let quadrants = AnimatedImages.quadrantFrames(count: 4)   // 16×12 each

    static func apng(_ frames: [Frame], width: Int = 16, height: Int = 12, plays: Int = 0,
                     configure: (inout AnimatedPNGWriter) -> Void = { _ in }) -> Data {
        var writer = AnimatedPNGWriter(width: width, height: height, plays: plays)
        writer.frames = frames
        configure(&writer)
        return writer.data()
    }

    @Test func everyFrameWithItsDelayAndThePlayCount() throws {
        // 1/10 s; 25/100 s; 7 with denominator 0 (hundredths); 0 (kept, as a GIF's 0 is).
        let delays: [(UInt16, UInt16)] = [(1, 10), (25, 100), (7, 0), (0, 1)]
        let frames = zip(Self.quadrants, delays).map { Frame(image: $0, delayNumerator: $1.0, delayDenominator: $1.1) }
        let data = Self.apng(frames, plays: 3)
        let decoded = try VipsImageDecoder().decodeBitmap(data, context: .init(format: .png))
        let animation = try #require(decoded.animation)
        #expect(animation.format == .png && animation.frameCount == 4 && animation.loopCount == 3 && animation.shortfall == nil)
        #expect(animation.frames.map(\.duration) == [0.1, 0.25, 0.07, 0])
        for (index, (frame, expected)) in zip(animation.frames, Self.quadrants).enumerated() {
            #expect(frame.bitmap.pixels == expected.pixels, "frame \(index)")
        }
        #expect(decoded.pixels == Self.quadrants[0].pixels)
        #expect(decoded.byteCount == 4 * 16 * 12 * 4 + data.count)
    }

    @Test func pillowsAPNGComposesAsPillowsReaderDoes() throws {
        // Sub-region frames with every disposal and blend, written by Pillow: the frames
        // Pillow's reader composes, transparent pixels equal whatever colour they carry. The
        // file keeps to opaque and clear pixels, where Pillow follows the specification
        // (scripts/make-apng-fixture.py says where it does not).
        let data = try Fixtures.data("apng/pillow-regions.png")
        let expected = try Fixtures.data("apng/pillow-regions.rgba")
        let animation = try #require(try VipsImageDecoder().decodeBitmap(data, context: .init(format: .png)).animation)
        #expect(animation.frames.count == 5 && animation.loopCount == 3 && animation.shortfall == nil)
        #expect(animation.frames.map(\.duration) == [0.04, 0.08, 0.12, 0.04, 0.2])
        let frameBytes = 32 * 24 * 4
        for (index, frame) in animation.frames.enumerated() {
            let want = [UInt8](expected[index * frameBytes..<(index + 1) * frameBytes])
            let got = frame.bitmap.pixels
            let differing = stride(from: 0, to: frameBytes, by: 4).filter { p in
                if got[p + 3] == 0 && want[p + 3] == 0 { return false }
                return (0..<4).contains { got[p + $0] != want[p + $0] }
            }
            #expect(differing.isEmpty, "frame \(index): \(differing.count) pixels differ, first at \(differing.first.map { ($0 / 4 % 32, $0 / 4 / 32, Array(got[$0..<$0 + 4]), Array(want[$0..<$0 + 4])) }.debugDescription)")
        }
    }

    @Test func framesSplitOverManyChunksAndAPaletteDecodeExactly() throws {
        let data = Self.apng(Self.quadrants.map { Frame(image: $0) }) {
            $0.usesPalette = true
            $0.maxChunkDataLength = 37
        }
        let animation = try #require(try VipsImageDecoder().decodeBitmap(data, context: .init(format: .png)).animation)
        #expect(animation.frames.map(\.bitmap.pixels) == Self.quadrants.map(\.pixels))
    }

    @Test func aDefaultImageOutsideTheAnimationIsNotAFrame() throws {
        let grey = AnimatedFiles.solid(width: 16, height: 12, 128, 128, 128)
        let data = Self.apng(Self.quadrants.prefix(3).map { Frame(image: $0) }) { $0.defaultImage = grey }
        let decoded = try VipsImageDecoder().decodeBitmap(data, context: .init(format: .png))
        let animation = try #require(decoded.animation)
        #expect(animation.frames.map(\.bitmap.pixels) == Self.quadrants.prefix(3).map(\.pixels))
        #expect(decoded.pixels == Self.quadrants[0].pixels, "the image is the animation's first frame")
    }

    @Test func aThumbnailShrinksEveryComposedFrame() throws {
        let big = AnimatedImages.quadrantFrames(count: 3, width: 80, height: 60)
        let data = Self.apng(big.map { Frame(image: $0) }, width: 80, height: 60)
        let decoded = try VipsImageDecoder().decodeBitmap(data, context: .init(format: .png, thumbnail: .init(maxPixelSize: 20)))
        #expect(decoded.width == 20 && decoded.height == 15)
        let animation = try #require(decoded.animation)
        #expect(animation.frames.count == 3)
        for (index, (frame, expected)) in zip(animation.frames, big).enumerated() {
            #expect(frame.bitmap.width == 20 && frame.bitmap.height == 15)
            for (x, y, sx, sy) in [(5, 4, 20, 15), (15, 4, 60, 15), (5, 11, 20, 45), (15, 11, 60, 45)] {
                let got = frame.bitmap.pixel(x: x, y: y), want = expected.pixel(x: sx, y: sy)
                #expect(got == want, "frame \(index) at (\(x), \(y)): \(got), want \(want)")
            }
        }
        #expect(decoded.byteCount == 3 * 20 * 15 * 4 + data.count)
    }

    @Test func aPNGWithoutAnimationChunksIsUnchanged() throws {
        var writer = AnimatedPNGWriter(width: 16, height: 12, plays: 0)
        writer.frames = [Frame(image: Self.quadrants[2])]
        // The same file without its acTL and fcTL: a plain PNG.
        let plain = AnimatedPNGWriter.file(writer.chunks().filter { $0.type != "acTL" && $0.type != "fcTL" })
        let decoded = try VipsImageDecoder().decodeBitmap(plain, context: .init(format: .png))
        #expect(decoded.animation == nil && decoded.pixels == Self.quadrants[2].pixels)
        // An acTL after the image data does not make an animation.
        var late = writer.chunks().filter { $0.type != "fcTL" }
        let acTL = late.remove(at: late.firstIndex { $0.type == "acTL" }!)
        late.insert(acTL, at: late.count - 1)
        let lateDecoded = try VipsImageDecoder().decodeBitmap(AnimatedPNGWriter.file(late), context: .init(format: .png))
        #expect(lateDecoded.animation == nil && lateDecoded.pixels == Self.quadrants[2].pixels)
    }

    @Test func aOneFrameAPNGIsAStillImage() throws {
        let data = Self.apng([Frame(image: Self.quadrants[1])])
        let decoded = try VipsImageDecoder().decodeBitmap(data, context: .init(format: .png))
        #expect(decoded.animation == nil && decoded.pixels == Self.quadrants[1].pixels)
    }

    @Test func aOneFrameAnimationBesideAHiddenDefaultImageShowsItsFrame() throws {
        // The IDAT image is not part of the animation, whose one frame is what a player shows.
        let data = Self.apng([Frame(image: Self.quadrants[1])]) { $0.defaultImage = Self.quadrants[2] }
        let decoded = try VipsImageDecoder().decodeBitmap(data, context: .init(format: .png))
        #expect(decoded.animation == nil && decoded.pixels == Self.quadrants[1].pixels)
    }

    @Test func allFramesOverThePixelLimitGiveTheDefaultImageFlagged() throws {
        let data = Self.apng(Self.quadrants.map { Frame(image: $0) }, plays: 2)
        // Frames of 192 pixels are charged `minimumFramePixelCharge` each.
        let charge = ImageDecodingContext.minimumFramePixelCharge
        let over = try VipsImageDecoder().decodeBitmap(data, context: .init(format: .png, maxPixelCount: 4 * charge - 1))
        #expect(over.pixels == Self.quadrants[0].pixels)
        let animation = try #require(over.animation)
        #expect(animation.shortfall == .overPixelBudget(frameCount: 4, pixelsPerFrame: charge, limit: 4 * charge - 1))
        #expect(animation.isFirstFrameOnly && animation.frames.isEmpty && animation.loopCount == 2)
        #expect(over.byteCount == 16 * 12 * 4 + data.count)

        let within = try VipsImageDecoder().decodeBitmap(data, context: .init(format: .png, maxPixelCount: 4 * charge))
        #expect(within.animation?.frames.count == 4 && within.animation?.shortfall == nil)
    }

    @Test func allFramesOverTheByteBudgetGiveTheDefaultImageFlagged() throws {
        let big = AnimatedImages.quadrantFrames(count: 4, width: 40, height: 30)
        let data = Self.apng(big.map { Frame(image: $0) }, width: 40, height: 30)
        let thumbnail = ThumbnailOptions(maxPixelSize: 20)    // 20×15: 4 frames take 4,800 bytes
        let over = try VipsImageDecoder().decodeBitmap(data, context: .init(format: .png, thumbnail: thumbnail, maxAnimationByteCount: 4799))
        #expect(over.width == 20 && over.height == 15)
        #expect(over.animation?.shortfall == .overByteBudget(byteCount: 4800, limit: 4799))
        #expect(over.animation?.frames.isEmpty == true)
        let within = try VipsImageDecoder().decodeBitmap(data, context: .init(format: .png, thumbnail: thumbnail, maxAnimationByteCount: 4800))
        #expect(within.animation?.frames.count == 4 && within.animation?.shortfall == nil)
    }

    @Test func manyTinyFramesAreCountedAndRefusedBeforeAnyIsDecoded() throws {
        // 3,000 frames of one pixel on a 100×100 canvas: 30 MP of frames from a small file.
        let first = Frame(image: AnimatedFiles.solid(width: 100, height: 100, 255, 0, 0))
        let rest = (1..<3000).map { Frame(image: AnimatedFiles.solid(width: 1, height: 1, 0, 0, 255), x: $0 % 100, y: $0 / 100) }
        let data = Self.apng([first] + rest, width: 100, height: 100)
        let context = ImageDecodingContext(format: .png, maxPixelCount: 1_000_000, memoryBudget: DecodeMemoryBudget(bytes: 4 << 20))
        let decoded = try VipsImageDecoder().decodeBitmap(data, context: context)
        #expect(decoded.pixel(x: 50, y: 50) == (255, 0, 0, 255))
        #expect(decoded.animation?.shortfall == .overPixelBudget(frameCount: 3000, pixelsPerFrame: 10_000, limit: 1_000_000))
    }

    @Test func theDecodeMemoryBudgetSeesEveryFrame() throws {
        // 8 frames of 200×200 kept whole: 1.28 MB of frames; with the canvas, copies and rows,
        // over a 2 MB decode budget that the canvas and one frame fit in.
        let frames = (0..<8).map { Frame(image: AnimatedFiles.solid(width: 200, height: 200, UInt8($0 * 30), 0, 0)) }
        let data = Self.apng(frames, width: 200, height: 200)
        let context = ImageDecodingContext(format: .png, memoryBudget: DecodeMemoryBudget(bytes: 2 << 20))
        #expect(throws: ImagePipelineError.self) { try VipsImageDecoder().decodeBitmap(data, context: context) }
        let roomy = ImageDecodingContext(format: .png, memoryBudget: DecodeMemoryBudget(bytes: 64 << 20))
        #expect(try VipsImageDecoder().decodeBitmap(data, context: roomy).animation?.frames.count == 8)
    }
}
#endif
