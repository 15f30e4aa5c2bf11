/// What a size in a thumbnail or a processor is measured in.
///
/// ```swift
/// ThumbnailOptions(size: CGSize(width: 100, height: 100))                  // 100 pt: 300 px on a 3× screen
/// ThumbnailOptions(size: CGSize(width: 300, height: 300), unit: .pixels)   // 300 px anywhere
/// ```
public enum ImageUnit: Sendable, Hashable {
    /// Points: multiplied by a scale (pixels per point) to give pixels. The scale is the one given,
    /// else the main display's (`UIScreen.main.scale`, the main display's backing scale on macOS);
    /// on Linux, where there is no screen, 1.
    case points
    /// Pixels, as they are.
    case pixels
}

/// How an image meets a target size of another aspect ratio, when it is decoded as a thumbnail
/// (`ThumbnailOptions`) or resized (`ImageProcessors.Resize`). Not how a view displays it: that
/// is `ViewContentMode`.
public enum ImageContentMode: String, Sendable, Hashable, CaseIterable {
    /// The whole image inside the size: both sides at most the size's, one of them equal.
    case aspectFit
    /// The size covered: both sides at least the size's, one of them equal; the other overflows
    /// (a resize with `crop` cuts it off).
    case aspectFill
}
