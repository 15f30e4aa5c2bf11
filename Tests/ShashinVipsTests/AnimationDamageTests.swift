// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ShashinCore
import ShashinVips
import Testing

/// Truncated animations give the frames before the damage (flagged `.damaged`), or a clear
/// `ImagePipelineError`; never a crash, never a frame with wrong pixels.
@Suite struct AnimationDamage {
    @Test(arguments: [ImageFormat.gif, .webp])
    func everyCutGivesTheFramesBeforeItOrATypedError(format: ImageFormat) throws {
        let data = try AnimatedFiles.make(format, frames: AnimatedImages.quadrantFrames(count: 4), delays: AnimatedImages.delays, loop: 0)
        let intact = try #require(try VipsImageDecoder().decodeBitmap(data, context: .init(format: format)).animation).frames
        #expect(intact.count == 4)
        var outcomes: [String: Int] = [:]
        for length in 1..<data.count {
            let cut = data.prefix(length)
            let decoded: Bitmap
            do {
                decoded = try VipsImageDecoder().decodeBitmap(cut, context: .init(format: format))
            } catch {
                // The type is the promise: a clear error, not whatever the library threw.
                outcomes["error", default: 0] += 1
                continue
            }
            #expect(decoded.pixels == intact[0].bitmap.pixels, "cut at \(length): the image is the first frame")
            guard let animation = decoded.animation else {
                outcomes["still", default: 0] += 1
                continue
            }
            #expect(!animation.frames.isEmpty && animation.frames.count <= 4)
            for (index, frame) in animation.frames.enumerated() {
                #expect(frame.bitmap == intact[index].bitmap, "cut at \(length): frame \(index) as in the intact file")
                #expect(frame.duration == intact[index].duration)
            }
            if animation.frames.count < 4 {
                #expect(animation.shortfall == .damaged(decodedFrames: animation.frames.count), "cut at \(length)")
                outcomes["frames before the damage", default: 0] += 1
            } else {
                outcomes["whole", default: 0] += 1
            }
        }
        #expect(outcomes["error", default: 0] > 0, "\(outcomes)")
        if format == .gif {
            // GIF's frames follow one another: a cut in a later frame keeps the earlier ones.
            #expect(outcomes["frames before the damage", default: 0] > 0, "\(outcomes)")
        }
    }
}
#endif
