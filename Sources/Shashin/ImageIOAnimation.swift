#if canImport(ImageIO)
import Foundation
import ImageIO
import ShashinCore

/// Every frame of an animated GIF, WebP or PNG (APNG) through ImageIO, for `ImageIODecoder`:
/// the same budget and the same `ImageAnimation` as `VipsImageDecoder` gives on Linux. ImageIO
/// composes each frame onto the canvas (disposal and blending; for APNG as documented, not
/// checked here) and shrinks it as it decodes.
///
/// This file is not compiled by the Linux CI and has not been run.
enum ImageIOAnimation {
    /// The animation of `source` (`frameCount` > 1), whose first frame the decoder made as
    /// `first` with `options`, as `context.animationPlan` says: every frame at `first`'s size,
    /// a frame source (`ImageIOFrames`) that decodes them while they play, or the first only,
    /// flagged. A frame ImageIO reports incomplete, or cannot decode, ends the
    /// frames (flagged `.damaged`).
    static func animation(of source: CGImageSource, format: ImageFormat, data: Data, frameCount: Int,
                          canvas: (width: Int, height: Int), upright: (width: Int, height: Int), first: CGImage,
                          options: CFDictionary, context: ImageDecodingContext) -> ImageAnimation {
        let loopCount = loopCount(of: source, format: format)
        let target = (width: first.width, height: first.height)
        switch context.animationPlan(frameCount: frameCount, width: canvas.width, height: canvas.height, target: target) {
        case .firstFrame(let shortfall):
            return ImageAnimation(format: format, frameCount: frameCount, data: data, loopCount: loopCount, shortfall: shortfall)
        case .frameSource:
            let durations = (0..<frameCount).map { delay(of: source, at: $0, format: format) }
            let frames = ImageIOFrames(data: data, context: context, upright: upright, target: target)
            return ImageAnimation(format: format, frameCount: frameCount, data: data, loopCount: loopCount,
                                  frameSource: AnimationFrameSource(durations: durations, loopCount: loopCount, decoder: frames))
        case .allFrames:
            break
        }
        var frames: [AnimationFrame] = []
        frames.reserveCapacity(frameCount)
        for index in 0..<frameCount {
            var image: CGImage
            if index == 0 {
                image = first
            } else {
                guard CGImageSourceGetStatusAtIndex(source, index) == .statusComplete,
                      let decoded = CGImageSourceCreateThumbnailAtIndex(source, index, options) else { break }
                image = decoded
                if image.width != target.width || image.height != target.height {
                    guard let redrawn = try? CoreGraphicsProcessing.redrawn(image, width: target.width, height: target.height) else { break }
                    image = redrawn
                }
            }
            guard let bitmap = Bitmap(platformImage: CoreGraphicsProcessing.makeImage(image)) else { break }
            frames.append(AnimationFrame(bitmap: bitmap, duration: delay(of: source, at: index, format: format)))
        }
        let shortfall: AnimationShortfall? = frames.count < frameCount ? .damaged(decodedFrames: frames.count) : nil
        return ImageAnimation(format: format, frameCount: frameCount, data: data, frames: frames, loopCount: loopCount,
                              shortfall: shortfall)
    }

    /// The frames of an animation decoded on demand: each reader keeps one `CGImageSource` over
    /// the data and asks it for one frame at a time at the first frame's size (ImageIO composes
    /// each frame on the canvas itself).
    struct ImageIOFrames: AnimationFrameDecoding {
        let data: Data
        let context: ImageDecodingContext
        let upright: (width: Int, height: Int)
        let target: (width: Int, height: Int)

        func makeReader() throws -> any AnimationFrameReading {
            let sourceOptions = [kCGImageSourceShouldCache: false] as CFDictionary
            guard let source = CGImageSourceCreateWithData(data as CFData, sourceOptions) else {
                throw ImagePipelineError.decodingFailed(format: context.format, reason: "ImageIO cannot read the data")
            }
            return Reader(source: source, frames: self)
        }

        final class Reader: AnimationFrameReading {
            let source: CGImageSource
            let frames: ImageIOFrames

            init(source: CGImageSource, frames: ImageIOFrames) {
                self.source = source
                self.frames = frames
            }

            func frame(at index: Int) throws -> Bitmap {
                let format = frames.context.format
                let options = ImageIODecoder.thumbnailOptions(frames.context, width: frames.upright.width, height: frames.upright.height)
                guard CGImageSourceGetStatusAtIndex(source, index) == .statusComplete,
                      var image = CGImageSourceCreateThumbnailAtIndex(source, index, options) else {
                    throw ImagePipelineError.decodingFailed(format: format, reason: "ImageIO cannot decode frame \(index)")
                }
                if image.width != frames.target.width || image.height != frames.target.height {
                    image = try CoreGraphicsProcessing.redrawn(image, width: frames.target.width, height: frames.target.height)
                }
                guard let bitmap = Bitmap(platformImage: CoreGraphicsProcessing.makeImage(image)) else {
                    throw ImagePipelineError.decodingFailed(format: format, reason: "frame \(index) has no pixels")
                }
                return bitmap
            }
        }
    }

    /// The file's loop count (0: forever); 0 when it gives none.
    private static func loopCount(of source: CGImageSource, format: ImageFormat) -> Int {
        let properties = CGImageSourceCopyProperties(source, nil) as? [CFString: Any]
        let keys = Keys(format)
        let dictionary = properties?[keys.dictionary] as? [CFString: Any]
        return dictionary?[keys.loopCount] as? Int ?? 0
    }

    /// How long frame `index` shows, in seconds, as the file says (unclamped when ImageIO gives it).
    private static func delay(of source: CGImageSource, at index: Int, format: ImageFormat) -> TimeInterval {
        let properties = CGImageSourceCopyPropertiesAtIndex(source, index, nil) as? [CFString: Any]
        let keys = Keys(format)
        guard let dictionary = properties?[keys.dictionary] as? [CFString: Any] else { return 0 }
        let unclamped = dictionary[keys.unclampedDelay] as? Double
        let clamped = dictionary[keys.delay] as? Double
        return max(0, unclamped ?? clamped ?? 0)
    }

    /// ImageIO's property keys for an animated format: GIF's, WebP's, or APNG's (inside the PNG
    /// dictionary).
    private struct Keys {
        let dictionary: CFString, loopCount: CFString, delay: CFString, unclampedDelay: CFString

        init(_ format: ImageFormat) {
            switch format {
            case .gif:
                self.init(dictionary: kCGImagePropertyGIFDictionary, loopCount: kCGImagePropertyGIFLoopCount,
                          delay: kCGImagePropertyGIFDelayTime, unclampedDelay: kCGImagePropertyGIFUnclampedDelayTime)
            case .png:
                self.init(dictionary: kCGImagePropertyPNGDictionary, loopCount: kCGImagePropertyAPNGLoopCount,
                          delay: kCGImagePropertyAPNGDelayTime, unclampedDelay: kCGImagePropertyAPNGUnclampedDelayTime)
            default:
                self.init(dictionary: kCGImagePropertyWebPDictionary, loopCount: kCGImagePropertyWebPLoopCount,
                          delay: kCGImagePropertyWebPDelayTime, unclampedDelay: kCGImagePropertyWebPUnclampedDelayTime)
            }
        }

        init(dictionary: CFString, loopCount: CFString, delay: CFString, unclampedDelay: CFString) {
            self.dictionary = dictionary
            self.loopCount = loopCount
            self.delay = delay
            self.unclampedDelay = unclampedDelay
        }
    }
}
#endif
