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
    /// `first` with `options`: every frame at `first`'s size when the budgets allow, otherwise
    /// the first only, flagged. A frame ImageIO reports incomplete, or cannot decode, ends the
    /// frames (flagged `.damaged`).
    static func animation(of source: CGImageSource, format: ImageFormat, data: Data, frameCount: Int,
                          canvas: (width: Int, height: Int), first: CGImage, options: CFDictionary,
                          context: ImageDecodingContext) -> ImageAnimation {
        let loopCount = loopCount(of: source, format: format)
        let target = (width: first.width, height: first.height)
        if let shortfall = context.animationShortfall(frameCount: frameCount, width: canvas.width, height: canvas.height, target: target) {
            return ImageAnimation(format: format, frameCount: frameCount, data: data, loopCount: loopCount, shortfall: shortfall)
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
