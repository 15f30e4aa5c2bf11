/// What `ImagePipeline.loadImage(_:)` returns: the image itself on a memory hit, decided
/// synchronously, or the task that is loading it.
public enum LoadingImage: Sendable {
    /// The image was in the memory cache: show it now, in this frame.
    case cached(ImageResponse)
    /// The image is loading; await `task.response` or cancel the task.
    case inProgress(ImageTask)
}
