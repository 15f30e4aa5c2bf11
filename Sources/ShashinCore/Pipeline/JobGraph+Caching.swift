import Foundation

extension JobGraph {
    /// What `request` changes about the HTTP cache: the key of its original
    /// (`CacheKeys.originalKey`), its disk switches and its own HTTP cache options.
    func httpControl(for request: ImageRequest) -> HTTPCache.RequestControl {
        HTTPCache.RequestControl(key: keys.originalKey(for: request),
                                 readsStorage: !request.options.contains(.disableDiskCacheReads),
                                 writesStorage: !request.options.contains(.disableDiskCacheWrites),
                                 options: request.httpCacheOptions)
    }
}
