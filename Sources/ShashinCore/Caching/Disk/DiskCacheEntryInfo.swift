import Foundation

/// One entry of a `DiskCache` as tools list it (`shashin cache list`): everything but its bytes.
public struct DiskCacheEntryInfo: Sendable, Equatable {
    /// Where an entry's bytes live.
    public enum Storage: Sendable, Equatable {
        /// In the SQLite index itself (entries smaller than the cache's `inlineThreshold`).
        case inline
        /// In a file of the cache's `data/` folder, named from the key's hash.
        case file(name: String)
    }

    /// The key the entry was stored under.
    public var key: String
    /// The entry's size in bytes (its data, not its metadata).
    public var size: Int
    /// When it was stored, or its metadata last replaced.
    public var storedAt: Date
    /// When it was last read (or stored); eviction removes the oldest first.
    public var lastAccess: Date
    /// Inline in the index or in a file.
    public var storage: Storage
}
