#if canImport(AVFoundation) && canImport(ImageIO) && !os(watchOS)
import AVFoundation
import CoreGraphics
import Foundation
import ShashinCore

/// Decodes a frame of a video (MP4, MOV, M4V) through AVFoundation: the first frame by default,
/// or the one `frame` names. `import Shashin` sets it as `ImageDecoderRegistry.videoDecoder` on
/// Apple platforms, so a request for a video's URL or a data source's video bytes gives its frame,
/// cached, downsampled and processed like any image.
///
/// AVFoundation reads a video from a file, never from `Data`: the bytes are written to a file of
/// their own in the temporary folder for the time of the decode, then removed. A video at a URL
/// is downloaded whole first (up to the configuration's `maxResponseBytes`).
///
/// ```swift
/// configuration.decoders.videoDecoder = AVFoundationVideoDecoder(frame: .init(time: 2, isExact: true))
/// ```
public struct AVFoundationVideoDecoder: ImageDecoding {
    /// Which frame is taken; default the first.
    public var frame: VideoFrameOptions

    /// Creates the decoder for the frame `frame` names (default the first).
    public init(frame: VideoFrameOptions = .firstFrame) {
        self.frame = frame
    }

    /// The frame of the video `data` holds, upright, in sRGB, at the context's thumbnail size;
    /// throws `ImagePipelineError` (`videoDecodingFailed` when AVFoundation cannot make it).
    public func decode(_ data: Data, context: ImageDecodingContext) throws -> PlatformImage {
        guard let format = VideoFormat(sniffing: data) else {
            throw ImagePipelineError.decodingFailed(format: context.format, reason: "The data is not an MP4, MOV or M4V video")
        }
        var image: CGImage
        do {
            image = try TemporaryFile.withContents(data, fileExtension: format.fileExtension) { url in
                // Without a thumbnail the frame is still bounded: a square of `maxPixelCount` pixels
                // holds a frame of any shape within the limit, so no larger frame is ever decoded.
                try frameImage(of: url, maximumSide: VideoFrameOptions.maximumSide(for: context.thumbnail)
                               ?? Int(Double(context.maxPixelCount).squareRoot()))
            }
        } catch {
            throw ImagePipelineError.videoDecodingFailed(format: format, reason: error.localizedDescription)
        }
        try context.checkPixelCount(width: image.width, height: image.height)
        let size = context.thumbnail?.targetSize(width: image.width, height: image.height) ?? (width: image.width, height: image.height)
        try context.checkPixelCount(width: size.width, height: size.height)
        if size.width != image.width || size.height != image.height || !CoreGraphicsProcessing.isSRGB(image) {
            do {
                image = try CoreGraphicsProcessing.redrawn(image, width: size.width, height: size.height)
            } catch {
                throw ImagePipelineError.videoDecodingFailed(format: format, reason: String(describing: error))
            }
        }
        return CoreGraphicsProcessing.makeImage(image, scale: context.scale)
    }

    /// The frame of the video file at `url`, with its track's orientation applied, no larger
    /// than `maximumSide` on its longest side when given.
    private func frameImage(of url: URL, maximumSide: Int?) throws -> CGImage {
        let asset = AVURLAsset(url: url)
        let generator = AVAssetImageGenerator(asset: asset)
        generator.appliesPreferredTrackTransform = true
        let tolerance = frame.isExact ? CMTime.zero : CMTime.positiveInfinity
        generator.requestedTimeToleranceBefore = tolerance
        generator.requestedTimeToleranceAfter = tolerance
        if let maximumSide { generator.maximumSize = CGSize(width: maximumSide, height: maximumSide) }
        let seconds = frame.clampedTime(duration: CMTimeGetSeconds(asset.duration))
        return try generator.copyCGImage(at: CMTime(seconds: seconds, preferredTimescale: 600), actualTime: nil)
    }
}
#endif
