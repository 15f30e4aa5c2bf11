/// Identifies a decoded (and possibly processed) image: its URL, the decode-time thumbnail size,
/// and the identifiers of the processors applied, in order.
public struct ImageCacheKey: Sendable, Hashable, CustomStringConvertible {
    /// The image's absolute URL string.
    public var url: String
    /// The decode-time thumbnail, if any.
    public var thumbnail: ThumbnailOptions?
    /// Identifiers of the processors applied, in order.
    public var processors: [String]

    /// Creates a key.
    public init(url: String, thumbnail: ThumbnailOptions? = nil, processors: [String] = []) {
        self.url = url
        self.thumbnail = thumbnail
        self.processors = processors
    }

    /// The key of the image before the last processor: what the last step starts from.
    var droppingLastProcessor: ImageCacheKey {
        ImageCacheKey(url: url, thumbnail: thumbnail, processors: Array(processors.dropLast()))
    }

    /// `url [thumb(300)] > resize > blur`, for logs.
    public var description: String {
        ([url] + (thumbnail.map { ["[\($0)]"] } ?? []) + processors.map { "> \($0)" }).joined(separator: " ")
    }
}
