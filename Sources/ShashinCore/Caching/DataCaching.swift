import Foundation

/// One stored response body and the metadata its owner keeps beside it.
public struct DataCacheEntry: Sendable, Equatable {
    /// The bytes, exactly as stored.
    public var data: Data
    /// Opaque to the cache: the HTTP cache keeps the stored response's status, headers and times here.
    public var metadata: Data?
    /// When the entry was stored (or its metadata last replaced), by the cache's clock.
    public var storedAt: Date

    public init(data: Data, metadata: Data? = nil, storedAt: Date = Date()) {
        self.data = data
        self.metadata = metadata
        self.storedAt = storedAt
    }
}

/// A persistent cache of original bytes (the pipeline's disk level), keyed by strings the cache
/// never uses as paths. Implementations must be safe to call from many threads; the pipeline calls
/// them off the caller's thread, so they may block on I/O.
///
/// Errors are for the caller to report (a full disk, a read-only folder): a failing cache must
/// never stop an image from loading. A damaged or torn entry is not an error: it is a miss.
public protocol DataCaching: Sendable {
    /// The entry for `key`, or `nil`. Reading counts as a use for eviction order.
    func entry(forKey key: String) throws -> DataCacheEntry?
    /// Whether an entry exists for `key`, without reading its bytes or counting as a use.
    func containsEntry(forKey key: String) -> Bool
    /// Stores `data` and `metadata` for `key`, replacing what was there; all or nothing.
    func store(_ data: Data, metadata: Data?, forKey key: String) throws
    /// Replaces only the metadata of an existing entry (a 304 refreshing headers); no-op when absent.
    func updateMetadata(_ metadata: Data?, forKey key: String) throws
    /// Replaces only the metadata of the entry for `key`, and only while its metadata is still
    /// exactly `expected` (byte for byte): a compare-and-set, so an update meant for one entry never
    /// lands on a newer one stored meanwhile. Does not read the entry's bytes or count as a use.
    /// - Returns: whether the metadata was replaced (`false`: no entry, or other metadata).
    ///
    /// The default implementation reads the whole entry, then calls `updateMetadata(_:forKey:)`:
    /// not atomic against a concurrent store. Implementations should do both in one step.
    func updateMetadata(_ metadata: Data?, forKey key: String, ifCurrent expected: Data?) throws -> Bool
    /// Removes the entry for `key`, if any.
    func removeEntry(forKey key: String) throws
    /// Removes every entry.
    func removeAll() throws
    /// Stores `data` for `key` as `store(_:metadata:forKey:)` does, filed under `group` (the
    /// pipeline files each processed result under its image's name) so `removeEntries(inGroup:)`
    /// finds it without listing the cache. The default ignores the group.
    func store(_ data: Data, metadata: Data?, forKey key: String, group: String?) throws
    /// Removes every entry stored under `group` (`removeCachedImage` removes an image's processed
    /// results this way). The default removes nothing: a cache without groups keeps those entries
    /// until its limits evict them.
    func removeEntries(inGroup group: String) throws
}

extension DataCaching {
    /// Stores without a group: `store(_:metadata:forKey:)`.
    public func store(_ data: Data, metadata: Data?, forKey key: String, group: String?) throws {
        try store(data, metadata: metadata, forKey: key)
    }

    /// Removes nothing: a cache without groups keeps grouped entries until evicted.
    public func removeEntries(inGroup group: String) throws {}

    /// The compare-and-set of metadata, from `entry(forKey:)` and `updateMetadata(_:forKey:)`:
    /// reads the bytes and is not atomic; a conformer that can do better should.
    public func updateMetadata(_ metadata: Data?, forKey key: String, ifCurrent expected: Data?) throws -> Bool {
        guard let current = try entry(forKey: key), current.metadata == expected else { return false }
        try updateMetadata(metadata, forKey: key)
        return true
    }
}
