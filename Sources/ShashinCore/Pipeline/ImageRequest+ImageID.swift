import Foundation

extension ImageRequest {
    /// Creates a request for `url` whose image is named `imageID` in every cache key (see
    /// `imageID`): for a signed URL that changes while the image does not.
    ///
    /// ```swift
    /// let request = ImageRequest(url: signedURL, imageID: "photo-42", thumbnail: .init(maxPixelSize: 300))
    /// ```
    public init(url: URL?, imageID: String?, thumbnail: ThumbnailOptions? = nil, processors: [any ImageProcessing] = [],
                priority: Priority = .normal, cachePolicy: HTTPCachePolicy = .useProtocolCachePolicy, options: Options = []) {
        self.init(url: url, thumbnail: thumbnail, processors: processors, priority: priority, cachePolicy: cachePolicy, options: options)
        self.imageID = imageID
    }
}
