import Foundation

extension DiskCache {
    /// Where a disk cache lives and how much it keeps: one value for `DiskCache(configuration:)`,
    /// with the defaults each property documents.
    ///
    /// ```swift
    /// var settings = DiskCache.Configuration(name: "images")   // in the user's caches folder
    /// settings.sizeLimit = 300 << 20
    /// settings.maxAge = 7 * 86_400
    /// let cache = try DiskCache(configuration: settings)
    /// ```
    public struct Configuration: Sendable {
        /// The cache's folder.
        public var directory: URL
        /// The most bytes of entry data to keep; default 150 MB (`DiskCache.defaultSizeLimit`).
        /// When a store takes the cache over it, the least recently used entries are evicted down
        /// to `trimRatio` of it on a background queue, never on the caller's path.
        public var sizeLimit = DiskCache.defaultSizeLimit
        /// The most entries to keep; default unlimited.
        public var countLimit = Int.max
        /// The fraction of the limits eviction brings the cache down to, 0...1; default 0.7.
        public var trimRatio = 0.7
        /// Entries smaller than this many bytes live in the index, larger ones in a file each;
        /// default 96 KB (`DiskCache.defaultInlineThreshold`).
        public var inlineThreshold = DiskCache.defaultInlineThreshold
        /// Whether each entry file is flushed to the disk before its row is committed, so even a
        /// power loss cannot leave a row naming unwritten bytes; default `true`. Without it a
        /// crashed process still never leaves torn entries; a power cut may cost entries (as misses).
        public var syncsFiles = true
        /// Entries not used (read or stored) for longer than this many seconds are removed — at
        /// open, and by the background sweep that enforces the limits (which a store also starts
        /// when the last age sweep is more than an eighth of `maxAge`, at most an hour, old);
        /// default `nil`: no age limit.
        public var maxAge: TimeInterval?
        /// The clock of stored and access times and of `maxAge`; default the system clock.
        public var now: @Sendable () -> Date = { Date() }
        /// The name given to `init(name:)`, checked when the cache opens.
        let name: String?

        /// A cache in `directory` (a file URL), with the default limits.
        public init(directory: URL) {
            self.directory = directory
            self.name = nil
        }

        /// A cache named `name` in the user's caches folder (`FileManager`'s caches directory on
        /// Apple platforms; `$XDG_CACHE_HOME`, else `~/.cache`, elsewhere), with the default
        /// limits. The name must be a single path component: `DiskCache(configuration:)` refuses
        /// any other.
        public init(name: String) {
            self.directory = DiskCache.defaultDirectory(name: name)
            self.name = name
        }

        /// The store's limits, each clamped to what it can be.
        var limits: DiskStore.Limits {
            DiskStore.Limits(sizeLimit: max(0, sizeLimit), countLimit: max(0, countLimit), trimRatio: min(1, max(0, trimRatio)),
                             inlineThreshold: max(0, inlineThreshold), syncsFiles: syncsFiles, maxAge: maxAge.map { max(0, $0) },
                             now: now)
        }
    }
}
