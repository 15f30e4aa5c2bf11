import Foundation

extension ImageProcessing {
    /// Runs this processor on `image` and, when it is an animation with decoded frames, on every
    /// frame, each through ``process(_:context:)`` within `context`'s limits: the result's first
    /// frame is the result, with the animation's durations, loop count and data kept. A streamed
    /// animation's other frames go through this processor as its frame source decodes them. An
    /// animation decoded to its first frame only keeps its facts on the result. This is how the
    /// pipeline runs processors, with the context its configuration makes.
    ///
    /// ```swift
    /// let small = try ImageProcessors.Resize(width: 64).processEveryFrame(animatedImage)
    /// ```
    public func processEveryFrame(_ image: PlatformImage,
                                  context: ImageProcessingContext = ImageProcessingContext()) throws -> PlatformImage {
        guard let animation = image.animation, !animation.frames.isEmpty else {
            let output = try process(image, context: context)
            guard output.animation == nil, let animation = image.animation else { return output }
            // A streamed animation's later frames go through this processor as they are decoded.
            return carrying(animation.mapStreamedFrames { frame in try processFrame(frame, context: context) }, output)
        }
        let mapped = try animation.mapFrames { frame in try processFrame(frame, context: context) }
        return carrying(mapped, mapped.frames[0].bitmap.platformImage)
    }

    /// One frame through ``process(_:context:)``, as a bitmap without an animation.
    private func processFrame(_ frame: Bitmap, context: ImageProcessingContext) throws -> Bitmap {
        guard var processed = Bitmap(platformImage: try process(frame.platformImage, context: context)) else {
            throw ImagePipelineError.processingFailed(identifier: identifier, reason: "a processed frame has no pixels")
        }
        processed.animation = nil
        return processed
    }
}

/// `image` with `animation` set: the same object where `PlatformImage` is a class (Apple), a
/// changed copy where it is a struct (`Bitmap`).
private func carrying(_ animation: ImageAnimation, _ image: PlatformImage) -> PlatformImage {
    #if canImport(UIKit) || canImport(AppKit) || SHASHIN_APPLE_SHAPE
    image.animation = animation
    return image
    #else
    var copy = image
    copy.animation = animation
    return copy
    #endif
}
