// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ShashinCore
import ShashinVips
import Testing

/// Animated GIF and WebP: every frame is decoded, with its duration and the loop count; the
/// first frame is the image.
@Suite struct AnimatedImages {
    static let frames = [AnimatedFiles.solid(width: 40, height: 30, 250, 10, 10),
                         AnimatedFiles.solid(width: 40, height: 30, 10, 10, 250),
                         AnimatedFiles.solid(width: 40, height: 30, 10, 250, 10),
                         AnimatedFiles.solid(width: 40, height: 30, 250, 250, 250)]
    /// Milliseconds; multiples of 10, which GIF keeps exactly.
    static let delays = [100, 250, 40, 1000]

    /// Frames with a different colour in each quadrant, rotating from frame to frame: a frame
    /// shown upside down, out of order or shifted gives other pixels.
    static func quadrantFrames(count: Int, width: Int = 16, height: Int = 12) -> [Bitmap] {
        let colours: [[UInt8]] = [[255, 0, 0, 255], [0, 0, 255, 255], [0, 255, 0, 255], [255, 255, 0, 255]]
        return (0..<count).map { frame in
            var pixels: [UInt8] = []
            for y in 0..<height {
                for x in 0..<width {
                    let quadrant = (x < width / 2 ? 0 : 1) + (y < height / 2 ? 0 : 2)
                    pixels += colours[(quadrant + frame) % 4]
                }
            }
            return Bitmap(width: width, height: height, pixels: pixels)
        }
    }

    static func isClose(_ pixel: (r: UInt8, g: UInt8, b: UInt8, a: UInt8), _ expected: Bitmap, tolerance: Int = 12) -> Bool {
        let e = expected.pixel(x: 0, y: 0)
        return abs(Int(pixel.r) - Int(e.r)) <= tolerance && abs(Int(pixel.g) - Int(e.g)) <= tolerance
            && abs(Int(pixel.b) - Int(e.b)) <= tolerance && pixel.a == 255
    }

    @Test(arguments: [ImageFormat.gif, .webp])
    func everyFrameDecodesWithItsDurationAndTheLoopCount(format: ImageFormat) throws {
        let data = try AnimatedFiles.make(format, frames: Self.frames, delays: Self.delays, loop: 3)
        #expect(ImageFormat(sniffing: data) == format)
        let decoded = try VipsImageDecoder().decodeBitmap(data, context: .init(format: format))
        #expect(decoded.width == 40 && decoded.height == 30)
        let animation = try #require(decoded.animation)
        #expect(animation.format == format)
        #expect(animation.frameCount == 4)
        #expect(animation.data == data)
        #expect(animation.shortfall == nil && !animation.isFirstFrameOnly)
        #expect(animation.loopCount == 3)
        #expect(animation.frames.map(\.duration) == Self.delays.map { Double($0) / 1000 })
        #expect(animation.frames.count == 4)
        #expect(animation.frames.first?.bitmap == Bitmap(width: 40, height: 30, pixels: decoded.pixels), "frames[0] is the image")
        for (frame, expected) in zip(animation.frames, Self.frames) {
            #expect(frame.bitmap.width == 40 && frame.bitmap.height == 30 && frame.bitmap.animation == nil)
            #expect(Self.isClose(frame.bitmap.pixel(x: 20, y: 15), expected), "\(frame.bitmap.pixel(x: 20, y: 15))")
        }
        #expect(decoded.byteCount == 4 * 40 * 30 * 4 + data.count, "the memory cache pays for every frame and the data")
    }

    @Test(arguments: [ImageFormat.gif, .webp])
    func aLoopCountOfZeroMeansForever(format: ImageFormat) throws {
        let data = try AnimatedFiles.make(format, frames: Self.frames, delays: Self.delays, loop: 0)
        #expect(try VipsImageDecoder().decodeBitmap(data, context: .init(format: format)).animation?.loopCount == 0)
    }

    @Test(arguments: [ImageFormat.gif, .webp])
    func everyFramesPixelsAreThoseOfTheFile(format: ImageFormat) throws {
        let frames = Self.quadrantFrames(count: 5)
        let data = try AnimatedFiles.make(format, frames: frames, delays: [50, 50, 50, 50, 50], loop: 0)
        let animation = try #require(try VipsImageDecoder().decodeBitmap(data, context: .init(format: format)).animation)
        #expect(animation.frames.count == 5)
        for (index, (frame, expected)) in zip(animation.frames, frames).enumerated() {
            // Lossless WebP is exact; GIF's palette holds the four colours exactly.
            #expect(frame.bitmap.pixels == expected.pixels, "frame \(index)")
        }
    }

    @Test(arguments: [ImageFormat.gif, .webp], [ImageFormat.gif, .webp])
    func framesDurationsAndLoopCountSurviveDecodeEncodeDecode(format: ImageFormat, written: ImageFormat) throws {
        let frames = Self.quadrantFrames(count: 4)
        let data = try AnimatedFiles.make(format, frames: frames, delays: Self.delays, loop: 5)
        let decoded = try VipsImageDecoder().decodeBitmap(data, context: .init(format: format))
        let encoded = try VipsImageEncoder().encodeBitmap(decoded, options: written == .webp ? .webp(lossless: true) : .init(format: .gif))
        #expect(ImageFormat(sniffing: encoded) == written)
        let again = try VipsImageDecoder().decodeBitmap(encoded, context: .init(format: written))
        let animation = try #require(again.animation)
        #expect(animation.frameCount == 4)
        #expect(animation.loopCount == 5)
        #expect(animation.frames.map(\.duration) == Self.delays.map { Double($0) / 1000 })
        for (index, (frame, expected)) in zip(animation.frames, frames).enumerated() {
            #expect(frame.bitmap.pixels == expected.pixels, "frame \(index)")
        }
    }

    @Test(arguments: [ImageFormat.gif, .webp])
    func aThumbnailShrinksEveryFrame(format: ImageFormat) throws {
        let frames = Self.quadrantFrames(count: 4, width: 80, height: 60)
        let data = try AnimatedFiles.make(format, frames: frames, delays: Self.delays, loop: 0)
        let decoded = try VipsImageDecoder().decodeBitmap(data, context: .init(format: format, thumbnail: .init(maxPixelSize: 20)))
        #expect(decoded.width == 20 && decoded.height == 15)
        let animation = try #require(decoded.animation)
        #expect(animation.frames.count == 4)
        #expect(animation.frames.map(\.duration) == Self.delays.map { Double($0) / 1000 })
        for (index, (frame, expected)) in zip(animation.frames, frames).enumerated() {
            #expect(frame.bitmap.width == 20 && frame.bitmap.height == 15)
            // Quadrant centres, away from the edges the resampler blends.
            for (x, y, sx, sy) in [(5, 4, 20, 15), (15, 4, 60, 15), (5, 11, 20, 45), (15, 11, 60, 45)] {
                let got = frame.bitmap.pixel(x: x, y: y), want = expected.pixel(x: sx, y: sy)
                #expect(abs(Int(got.r) - Int(want.r)) <= 8 && abs(Int(got.g) - Int(want.g)) <= 8 && abs(Int(got.b) - Int(want.b)) <= 8,
                        "frame \(index) at (\(x), \(y)): \(got), want \(want)")
            }
        }
        #expect(decoded.byteCount == 4 * 20 * 15 * 4 + data.count)
    }

    @Test func aCraftedGIFCountsEveryFrame() throws {
        let palette: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 0, 255), (0, 255, 0), (255, 255, 255)]
        let frames = (0..<7).map { [UInt8](repeating: UInt8($0 % 4), count: 6 * 4) }
        let gif = CraftedFiles.animatedGIF(width: 6, height: 4, palette: palette, frames: frames)
        let decoded = try VipsImageDecoder().decodeBitmap(gif, context: .init(format: .gif))
        #expect(decoded.pixel(x: 0, y: 0) == (255, 0, 0, 255))
        let animation = try #require(decoded.animation)
        #expect(animation.frameCount == 7)
        #expect(animation.frames.map { $0.bitmap.pixel(x: 3, y: 2).r } == [255, 0, 0, 255, 255, 0, 0])
        #expect(animation.frames.allSatisfy { $0.duration == 0.1 })
    }

    @Test(arguments: [ImageFormat.gif, .webp, .png, .jpeg])
    func aStillImageHasNoAnimation(format: ImageFormat) throws {
        let data = try VipsImageEncoder().encodeBitmap(Self.frames[0], as: format, quality: 0.9)
        let decoded = try VipsImageDecoder().decodeBitmap(data, context: .init(format: format))
        #expect(decoded.animation == nil)
        #expect(decoded.byteCount == 40 * 30 * 4)
    }

    @Test func aSingleFrameAnimationFileIsAStillImage() throws {
        let data = try AnimatedFiles.make(.webp, frames: [Self.frames[1]])
        #expect(try VipsImageDecoder().decodeBitmap(data, context: .init(format: .webp)).animation == nil)
    }

    @Test func aStillEncodingOfAnAnimationIsItsFirstFrame() throws {
        let data = try AnimatedFiles.make(.webp, frames: Self.frames, delays: Self.delays, loop: 0)
        let decoded = try VipsImageDecoder().decodeBitmap(data, context: .init(format: .webp))
        let png = try VipsImageEncoder().encodeBitmap(decoded, as: .png, quality: 1)
        let still = try VipsImageDecoder().decodeBitmap(png, context: .init(format: .png))
        #expect(still.animation == nil && still.pixels == decoded.pixels)
    }
}
#endif
