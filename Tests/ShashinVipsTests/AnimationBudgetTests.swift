// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ShashinCore
import ShashinVips
import Testing

/// One budget across all frames: over `maxPixelCount` (all frames at the file's size) or
/// `maxAnimationByteCount` (all frames at the delivered size), the first frame only, flagged.
@Suite struct AnimationBudgets {
    static let frames = AnimatedImages.frames   // 4 frames of 40×30: 4,800 pixels in all

    @Test(arguments: [ImageFormat.gif, .webp])
    func allFramesOverThePixelLimitGiveTheFirstFrameFlagged(format: ImageFormat) throws {
        let data = try AnimatedFiles.make(format, frames: Self.frames, delays: AnimatedImages.delays, loop: 2)
        // Frames of 1,200 pixels are charged `minimumFramePixelCharge` each: 16,384 in all.
        let charge = ImageDecodingContext.minimumFramePixelCharge
        let decoded = try VipsImageDecoder().decodeBitmap(data, context: .init(format: format, maxPixelCount: 4 * charge - 1))
        #expect(decoded.width == 40 && decoded.height == 30)
        #expect(AnimatedImages.isClose(decoded.pixel(x: 20, y: 15), Self.frames[0]))
        let animation = try #require(decoded.animation)
        #expect(animation.isFirstFrameOnly)
        #expect(animation.shortfall == .overPixelBudget(frameCount: 4, pixelsPerFrame: charge, limit: 4 * charge - 1))
        #expect(animation.frames.isEmpty)
        #expect(animation.frameCount == 4 && animation.loopCount == 2)
        #expect(decoded.byteCount == 40 * 30 * 4 + data.count)

        let within = try VipsImageDecoder().decodeBitmap(data, context: .init(format: format, maxPixelCount: 4 * charge))
        #expect(within.animation?.frames.count == 4 && within.animation?.shortfall == nil)
    }

    @Test(arguments: [ImageFormat.gif, .webp])
    func allFramesOverTheByteBudgetGiveTheFirstFrameFlagged(format: ImageFormat) throws {
        let data = try AnimatedFiles.make(format, frames: Self.frames, delays: AnimatedImages.delays, loop: 0)
        let thumbnail = ThumbnailOptions(maxPixelSize: 20)    // 20×15: 4 frames take 4,800 bytes
        let over = try VipsImageDecoder().decodeBitmap(data, context: .init(format: format, thumbnail: thumbnail, maxAnimationByteCount: 4799))
        #expect(over.width == 20 && over.height == 15)
        #expect(over.animation?.shortfall == .overByteBudget(byteCount: 4800, limit: 4799))
        #expect(over.animation?.isFirstFrameOnly == true && over.animation?.frames.isEmpty == true)

        let within = try VipsImageDecoder().decodeBitmap(data, context: .init(format: format, thumbnail: thumbnail, maxAnimationByteCount: 4800))
        #expect(within.animation?.frames.count == 4 && within.animation?.isFirstFrameOnly == false)
    }

    @Test func aGIFOfTenThousandFramesIsCountedFromItsHeaderAndNeverDecodedWhole() throws {
        // A 200×200 canvas of 10,000 one-pixel frames: a small file whose frames, decoded,
        // would take 1.6 GB.
        let palette: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 0, 255), (0, 255, 0), (255, 255, 255)]
        let first = CraftedFiles.GIFFrame(x: 0, y: 0, width: 200, height: 200, indices: [UInt8](repeating: 0, count: 40_000), disposal: 1)
        let rest = (1..<10_000).map { (i: Int) -> CraftedFiles.GIFFrame in
            let x = UInt16(i % 200), y = UInt16(i / 200 % 200), colour = UInt8(i % 3)
            return CraftedFiles.GIFFrame(x: x, y: y, width: 1, height: 1, indices: [colour], disposal: 1)
        }
        let gif = CraftedFiles.regionGIF(width: 200, height: 200, palette: palette, frames: [first] + rest)
        // A decode budget of 4 MB: enough for one frame, refused for the frames (see
        // `DecodeMemoryBudget`), so a decoder that went on to decode them would fail.
        let context = ImageDecodingContext(format: .gif, memoryBudget: DecodeMemoryBudget(bytes: 4 << 20))
        let decoded = try VipsImageDecoder().decodeBitmap(gif, context: context)
        #expect(decoded.width == 200 && decoded.height == 200)
        #expect(decoded.pixel(x: 100, y: 100) == (255, 0, 0, 255))
        let animation = try #require(decoded.animation)
        #expect(animation.frameCount == 10_000)
        #expect(animation.shortfall == .overPixelBudget(frameCount: 10_000, pixelsPerFrame: 40_000,
                                                        limit: ImageDecodingContext.defaultMaxPixelCount))
        #expect(decoded.byteCount == 200 * 200 * 4 + gif.count)
    }

    @Test func aBudgetThatOverflowsIsOver() {
        let context = ImageDecodingContext(format: .gif)
        let pixels = context.animationShortfall(frameCount: Int.max / 2, width: 1 << 20, height: 1 << 20, target: (1, 1))
        #expect(pixels == AnimationShortfall.overPixelBudget(frameCount: Int.max / 2, pixelsPerFrame: 1 << 40, limit: context.maxPixelCount))
        var generous = context
        generous.maxPixelCount = .max
        // Frames charged `minimumFramePixelCharge` pixels each: few enough that their pixels fit an Int.
        let bytes = generous.animationShortfall(frameCount: Int.max / 8192, width: 1, height: 1, target: (1 << 20, 1 << 20))
        #expect(bytes == AnimationShortfall.overByteBudget(byteCount: .max, limit: context.maxAnimationByteCount))
    }
}
#endif
