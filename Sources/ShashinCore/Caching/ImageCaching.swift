/// A cache of decoded images, looked up synchronously on the caller's thread (so a hit can be
/// shown in the first frame). Implementations must be thread-safe.
public protocol ImageCaching: AnyObject, Sendable {
    /// The image for `key`, or `nil`. Reading counts as a use for eviction order.
    func image(forKey key: ImageCacheKey) -> PlatformImage?
    /// Stores `image` for `key`; an implementation may refuse it (too large, for instance).
    func store(_ image: PlatformImage, forKey key: ImageCacheKey)
    /// Removes the image for `key`.
    func removeImage(forKey key: ImageCacheKey)
    /// Removes every image.
    func removeAll()
}
