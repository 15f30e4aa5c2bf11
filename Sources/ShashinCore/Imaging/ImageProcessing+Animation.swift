import Foundation

extension ImageProcessing {
    /// Runs this processor on `image` and, when it is an animation with decoded frames, on every
    /// frame, each through ``process(_:context:)`` within `context`'s limits: the result's first
    /// frame is the result, with the animation's durations, loop count and data kept. An
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
            return carrying(animation, output)
        }
        let mapped = try animation.mapFrames { frame in
            guard var processed = Bitmap(platformImage: try process(frame.platformImage, context: context)) else {
                throw ImagePipelineError.processingFailed(identifier: identifier, reason: "a processed frame has no pixels")
            }
            processed.animation = nil
            return processed
        }
        return carrying(mapped, mapped.frames[0].bitmap.platformImage)
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
