/// How the pipeline delivers an animated GIF, WebP or PNG (APNG): every frame decoded up front,
/// a frame source that decodes while it plays, or the first frame alone.
///
/// Set it for every request with `ImagePipeline.Configuration.animationDelivery`, or for one
/// with `ImageRequest.animationDelivery`. Requests that differ in it are cached apart.
///
/// ```swift
/// var request = ImageRequest(url: url, thumbnail: .init(maxPixelSize: 200))
/// request.animationDelivery = .frameSource      // a 300-frame GIF plays in a few MB
/// request.animationDelivery = .firstFrameOnly   // a still image: one frame decoded
/// ```
public enum AnimationDelivery: Sendable, Hashable, CustomStringConvertible {
    /// Every frame when they fit `maxAnimationByteCount` (and all frames at the file's size fit
    /// `maxPixelCount`); beyond, a frame source. The default.
    case automatic
    /// Every frame decoded up front within the budgets; beyond them, the first frame only
    /// (`ImageAnimation.shortfall` says which budget).
    case allFrames
    /// The first frame at once and an `AnimationFrameSource` (`ImageAnimation.frameSource`) that
    /// decodes the others on demand at the delivered size: the memory cache holds the first
    /// frame and the encoded data, not every frame. Each playback (an `AnimationFrameBuffer`)
    /// holds its buffered frames and its decoder's canvas, about one frame at the file's size,
    /// for as long as it plays; neither the memory cache nor the decode budget counts them.
    case frameSource
    /// One frame decoded: the image is still, and `ImageAnimation` says only the frame count,
    /// the data and the loop count (Kingfisher's `.onlyLoadFirstFrame`, SDWebImage's
    /// `.decodeFirstFrameOnly`).
    case firstFrameOnly

    /// `automatic`, `all frames`, `frame source`, `first frame only`.
    public var description: String {
        switch self {
        case .automatic: "automatic"
        case .allFrames: "all frames"
        case .frameSource: "frame source"
        case .firstFrameOnly: "first frame only"
        }
    }
}
