// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ShashinCore
import ShashinVips
import Testing

/// Animated GIF and WebP: the first frame is the image; the original data and the frame count
/// travel with it.
@Suite struct AnimatedImages {
    static let frames = [AnimatedFiles.solid(width: 40, height: 30, 250, 10, 10),
                         AnimatedFiles.solid(width: 40, height: 30, 10, 10, 250),
                         AnimatedFiles.solid(width: 40, height: 30, 10, 250, 10),
                         AnimatedFiles.solid(width: 40, height: 30, 250, 250, 250)]

    @Test(arguments: [ImageFormat.gif, .webp])
    func anAnimationDecodesToItsFirstFrameWithItsDataAndFrameCount(format: ImageFormat) throws {
        let data = try AnimatedFiles.make(format, frames: Self.frames)
        #expect(ImageFormat(sniffing: data) == format)
        let decoded = try VipsImageDecoder().decodeBitmap(data, context: .init(format: format))
        #expect(decoded.width == 40 && decoded.height == 30)
        let centre = decoded.pixel(x: 20, y: 15)
        #expect(centre.r > 200 && centre.g < 50 && centre.b < 50 && centre.a == 255, "the first (red) frame: \(centre)")
        let animation = try #require(decoded.animation)
        #expect(animation.format == format)
        #expect(animation.frameCount == 4)
        #expect(animation.data == data)
        #expect(decoded.byteCount == 40 * 30 * 4 + data.count, "the memory cache pays for the kept data")
    }

    @Test(arguments: [ImageFormat.gif, .webp])
    func aThumbnailOfAnAnimationKeepsTheAnimation(format: ImageFormat) throws {
        let data = try AnimatedFiles.make(format, frames: Self.frames)
        let decoded = try VipsImageDecoder().decodeBitmap(data, context: .init(format: format, thumbnail: .init(maxPixelSize: 20)))
        #expect(decoded.width == 20 && decoded.height == 15)
        #expect(decoded.animation?.frameCount == 4)
    }

    @Test func aCraftedGIFCountsEveryFrame() throws {
        let palette: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 0, 255), (0, 255, 0), (255, 255, 255)]
        let frames = (0..<7).map { [UInt8](repeating: UInt8($0 % 4), count: 6 * 4) }
        let gif = CraftedFiles.animatedGIF(width: 6, height: 4, palette: palette, frames: frames)
        let decoded = try VipsImageDecoder().decodeBitmap(gif, context: .init(format: .gif))
        #expect(decoded.pixel(x: 0, y: 0) == (255, 0, 0, 255))
        #expect(decoded.animation?.frameCount == 7)
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

    @Test(arguments: [ImageFormat.gif, .webp])
    func aCutAnimationFailsInsteadOfGivingPartOfIt(format: ImageFormat) throws {
        let data = try AnimatedFiles.make(format, frames: Self.frames)
        #expect(throws: ImagePipelineError.self) {
            try VipsImageDecoder().decode(data.prefix(data.count / 3), context: .init(format: format))
        }
    }
}
#endif
