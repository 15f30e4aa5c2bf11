/// Identifies a decoded (and possibly processed) image: its name (its URL, or the identifier the
/// request or the pipeline gives it), the decode-time thumbnail size, and the identifiers of the
/// processors applied, in order.
public struct ImageCacheKey: Sendable, Hashable, CustomStringConvertible {
    /// The image's name: its absolute URL string, or for an image named by an identifier
    /// (`ImageRequest.imageID`, `ImageIDRule`) `image-id:` and the identifier percent-encoded.
    public var url: String
    /// The decode-time thumbnail, if any.
    public var thumbnail: ThumbnailOptions?
    /// Identifiers of the processors applied, in order.
    public var processors: [String]
    /// How an animation is delivered, when the request chose (`ImageRequest.animationDelivery`);
    /// `nil` follows the pipeline's configuration.
    public var animationDelivery: AnimationDelivery?

    /// Creates a key.
    public init(url: String, thumbnail: ThumbnailOptions? = nil, processors: [String] = [],
                animationDelivery: AnimationDelivery? = nil) {
        self.url = url
        self.thumbnail = thumbnail
        self.processors = processors
        self.animationDelivery = animationDelivery
    }

    /// The key of the image before the last processor: what the last step starts from.
    var droppingLastProcessor: ImageCacheKey {
        ImageCacheKey(url: url, thumbnail: thumbnail, processors: Array(processors.dropLast()), animationDelivery: animationDelivery)
    }

    /// `url [thumb(300)] {frame source} > resize > blur`, for logs.
    public var description: String {
        ([url] + (thumbnail.map { ["[\($0)]"] } ?? []) + (animationDelivery.map { ["{\($0)}"] } ?? [])
            + processors.map { "> \($0)" }).joined(separator: " ")
    }
}
