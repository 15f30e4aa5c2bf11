import Foundation

/// What a decoder is asked to do with one piece of data.
public struct ImageDecodingContext: Sendable {
    /// The format sniffed from the data's first bytes, when recognised.
    public var format: ImageFormat?
    /// Downsample while decoding to this size; `nil` decodes at full size.
    public var thumbnail: ThumbnailOptions?
    /// The most pixels (width × height, as declared by the file's header) the decoder may
    /// allocate; larger images fail with `ImagePipelineError.imageTooLarge` before any pixel is
    /// decoded.
    public var maxPixelCount: Int
    /// The memory budget the decode reserves its estimated peak from (libvips and the direct
    /// JPEG path; ImageIO decodes without an estimate); over it, `.decodeMemoryExceeded`.
    public var memoryBudget: DecodeMemoryBudget
    /// The most bytes the decoded frames of one animation (at the delivered size, 4 bytes a
    /// pixel) may take; over it, or when all frames at the file's size pass `maxPixelCount`,
    /// only the first frame is decoded and `ImageAnimation.shortfall` says so.
    public var maxAnimationByteCount: Int
    /// How an animated image is delivered (see `AnimationDelivery`); decoders read it through
    /// `animationPlan(frameCount:width:height:target:repeatedWorkPerFrame:)`. Default `.allFrames`;
    /// the pipeline passes its configuration's (`.automatic` by default) or the request's.
    public var animationDelivery: AnimationDelivery
    /// Pixels per point of the decoded image (`UIImage.scale`; an `NSImage`'s size is its pixels
    /// divided by it); a `Bitmap` has none. Default: the thumbnail's ``ThumbnailOptions/scale``, 1
    /// without one.
    public var scale: Double

    /// Creates a decoding context; `scale` `nil` takes the thumbnail's.
    public init(format: ImageFormat?, thumbnail: ThumbnailOptions? = nil, maxPixelCount: Int = ImageDecodingContext.defaultMaxPixelCount,
                memoryBudget: DecodeMemoryBudget = .shared,
                maxAnimationByteCount: Int = ImageDecodingContext.defaultMaxAnimationByteCount, scale: Double? = nil,
                animationDelivery: AnimationDelivery = .allFrames) {
        self.format = format
        self.thumbnail = thumbnail
        self.scale = scale ?? thumbnail?.scale ?? 1
        self.maxPixelCount = maxPixelCount
        self.memoryBudget = memoryBudget
        self.maxAnimationByteCount = maxAnimationByteCount
        self.animationDelivery = animationDelivery
    }

    /// 64 MB: 100 frames of 400×400, or 1,000 thumbnails of 128×128.
    public static let defaultMaxAnimationByteCount = 64 << 20

    /// 100 megapixels: a 12 MP photo passes many times over, a 65535×65535 bomb does not.
    public static let defaultMaxPixelCount = 100_000_000

    /// Throws `ImagePipelineError.imageTooLarge` unless `width` × `height` is within
    /// `maxPixelCount` (a product that overflows is over): call it with the header's size, and
    /// with an upscaled thumbnail's, before allocating pixels.
    public func checkPixelCount(width: Int, height: Int) throws(ImagePipelineError) {
        let (pixelCount, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixelCount > maxPixelCount {
            throw .imageTooLarge(width: width, height: height, limit: maxPixelCount)
        }
    }
}

/// Turns encoded bytes into an image. The pipeline calls it on its decode queue, never on the
/// caller's thread; an implementation must be safe to call from several threads at once.
///
/// Errors should be `ImagePipelineError.decodingFailed` or `.imageTooLarge`; anything else is
/// wrapped in `.decodingFailed` by the pipeline.
public protocol ImageDecoding: Sendable {
    /// Decodes `data`, downsampling to `context.thumbnail` when given, with orientation applied.
    func decode(_ data: Data, context: ImageDecodingContext) throws -> PlatformImage
}
