extension MemoryCache {
    /// Removes every image whose key satisfies `shouldRemove` (one pass over the keys, under the
    /// cache's lock: `shouldRemove` must be quick and must not use the cache).
    ///
    /// ```swift
    /// cache.removeImages { $0.url == "https://example.com/a.jpg" }   // every size and variant
    /// ```
    public func removeImages(where shouldRemove: (ImageCacheKey) -> Bool) {
        withStorage { storage in
            for key in storage.entries.keys where shouldRemove(key) { storage.remove(key) }
        }
    }
}
