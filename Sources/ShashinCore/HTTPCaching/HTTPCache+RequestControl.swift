import Foundation

extension HTTPCache {
    /// What one request changes about the cache (the pipeline's per-request switches): the key
    /// its response is filed under, whether it may read or write storage, and its own options.
    struct RequestControl: Sendable {
        /// The storage key in place of the URL's (`CacheKeys.originalKey`); `nil`: the URL's.
        var key: String?
        /// Whether a stored response may answer or be revalidated; `false` asks the server plainly.
        var readsStorage = true
        /// Whether the response may be stored (or a stored one's headers refreshed).
        var writesStorage = true
        /// The rules' options for this request; `nil`: the cache's.
        var options: Options?

        init(key: String? = nil, readsStorage: Bool = true, writesStorage: Bool = true, options: Options? = nil) {
            self.key = key
            self.readsStorage = readsStorage
            self.writesStorage = writesStorage
            self.options = options
        }
    }
}
