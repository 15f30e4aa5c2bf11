import Foundation

extension ImageRequest {
    /// This request with a thumbnail the size of a view of `size` points, which the image fits
    /// inside or covers: `ThumbnailOptions(size:unit:scale:contentMode:)` in points, at `scale`
    /// pixels per point (default: the main display's; 1 on Linux, where there is no screen).
    /// Processors and everything else are kept; the thumbnail replaces one the request had. A
    /// size with no area yet (a side of 0 or less, or not finite: before layout) leaves the
    /// request as it is. In `ShashinUI`, `sized(toView:)` takes the size and the scale from a view.
    ///
    /// ```swift
    /// let sized = request.sized(to: CGSize(width: 100, height: 100), scale: 3)  // covers 300 × 300 px, scale 3
    /// ```
    public func sized(to size: CGSize, scale: Double? = nil, contentMode: ImageContentMode = .aspectFill) -> ImageRequest {
        let width = Double(size.width), height = Double(size.height)
        guard width.isFinite, height.isFinite, width > 0, height > 0 else { return self }
        var request = self
        request.thumbnail = ThumbnailOptions(size: size, unit: .points, scale: scale, contentMode: contentMode)
        return request
    }
}
