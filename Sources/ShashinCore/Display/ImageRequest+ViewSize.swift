import Foundation

extension ImageRequest {
    /// This request with a thumbnail the size of a view of `size` points on a screen of `scale`
    /// pixels per point, which the image fits inside or covers (`ThumbnailOptions(size:unit:scale:contentMode:)`
    /// in points); processors and everything else are kept. `nil` while the view has no size
    /// yet (a side of 0 or less, or not finite): wait for its layout rather than load the full
    /// image. The thumbnail replaces one the request had.
    ///
    /// ```swift
    /// let sized = request.sized(toView: CGSize(width: 100, height: 100), scale: 3)  // 300 × 300 px box, scale 3
    /// ```
    public func sized(toView size: CGSize, scale: Double,
                      contentMode: ThumbnailOptions.ContentMode = .aspectFill) -> ImageRequest? {
        let width = Double(size.width), height = Double(size.height)
        guard width.isFinite, height.isFinite, width > 0, height > 0 else { return nil }
        var request = self
        request.thumbnail = ThumbnailOptions(size: size, unit: .points, scale: scale, contentMode: contentMode)
        return request
    }
}
