import Foundation

/// A persistent cache of bytes and metadata on disk: an SQLite index (keyed by a hash of the key)
/// with small entries inline in the index and larger ones in a file each. The pipeline's disk
/// level (`DataCaching`); the HTTP cache keeps each response's headers in the metadata.
///
/// - Limits: `sizeLimit` bytes and `countLimit` entries; when a store takes the cache over
///   either, the least recently used entries are evicted down to `trimRatio` of the limits on a
///   background queue, never on the caller's path.
/// - Crash safety: a file is written under a temporary name, flushed, renamed, and only then
///   named by a committed index row, so a killed process never leaves an entry that reads as
///   torn bytes. An open that finds no other process (and no other instance in this process) on
///   the folder removes what a crash left behind — files without rows, rows without files —
///   before anything else runs on the folder (`flush()` waits for it). A file whose size is not
///   its row's is a miss.
/// - Safe to use from many threads. Every `DiskCache` on one folder in a process shares one store;
///   when the last of them is released, the store writes what is pending, closes the index and
///   releases the folder's lock before the release returns, so the next open is alone at once.
///   Lookups share one read transaction of the index for up to 10 ms (it saves a lock and an
///   unlock of the WAL index per read), so a write by *another process* may go unseen here for
///   that long; this process's own writes are seen at once, and `flush()` ends the transaction.
/// - Keys never become paths: files are named from the key's SHA-256. Files are owner-only
///   (`0600`) and the folders the cache creates `0700`.
///
/// ```swift
/// let cache = try DiskCache(name: "images")                 // ~/.cache/images on Linux
/// try cache.store(data, metadata: nil, forKey: url.absoluteString)
/// let entry = try cache.entry(forKey: url.absoluteString)  // DataCacheEntry?
///
/// var settings = DiskCache.Configuration(name: "avatars")
/// settings.sizeLimit = 50 << 20
/// settings.maxAge = 30 * 86_400                             // unused for 30 days: gone
/// let avatars = try DiskCache(configuration: settings)
/// ```
public final class DiskCache: DataCaching {
    /// The default size limit: 150 MB.
    public static let defaultSizeLimit = 150 << 20
    /// The default size under which an entry's bytes are kept in the index rather than in a file
    /// of their own: 96 KB. Reading from the index was faster up to 96 KB and slower from 128 KB
    /// on the machine we measured (BENCHMARKS.md, "Disk cache").
    public static let defaultInlineThreshold = 96 << 10

    /// The cache's folder.
    public let directory: URL
    let store: DiskStore

    /// Opens (creating when missing) the cache `configuration` describes.
    ///
    /// Instances on the same folder share one store, and the limits are the store's: the latest
    /// instance's apply to all of them.
    ///
    /// - Throws: `DiskCacheError.cannotOpen` when the folder or the index cannot be created or
    ///   opened, or the configuration's `name` is not a single path component (empty, `.`, `..`,
    ///   or holding `/` or NUL). A damaged index is not an error: it is moved aside and replaced by
    ///   an empty one, and `recovery` says so.
    public init(configuration: Configuration) throws {
        if let name = configuration.name {
            guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.contains("\0") else {
                throw DiskCacheError.cannotOpen(path: name, reason: "a cache name must be a single path component")
            }
        }
        (self.directory, store) = try Self.open(configuration.directory, limits: configuration.limits, fileSystem: PosixFileSystem())
    }

    /// Opens (creating when missing) the cache named `name` in the user's caches folder, with the
    /// default limits: `init(configuration: .init(name: name))`.
    ///
    /// ```swift
    /// configuration.diskCache = try DiskCache(name: "images")
    /// ```
    public convenience init(name: String) throws {
        try self.init(configuration: Configuration(name: name))
    }

    /// Tests inject a file layer that fails the way a full disk or a read-only folder does.
    init(directory: URL, limits: DiskStore.Limits, fileSystem: any DiskFileSystem) throws(DiskCacheError) {
        (self.directory, store) = try Self.open(directory, limits: limits, fileSystem: fileSystem)
    }

    /// The last instance on a folder closes its store: the folder lock is free when this returns.
    deinit { DiskStoreRegistry.release(directory.path) }

    private static func open(_ directory: URL, limits: DiskStore.Limits, fileSystem: any DiskFileSystem) throws(DiskCacheError) -> (URL, DiskStore) {
        guard directory.isFileURL else {
            throw .cannotOpen(path: directory.absoluteString, reason: "not a file URL")
        }
        let resolved = directory.standardizedFileURL.resolvingSymlinksInPath()
        let path = resolved.path
        let store = try DiskStoreRegistry.acquire(path) { () throws(DiskCacheError) in
            try DiskStore(directory: path, limits: limits, fileSystem: fileSystem)
        }
        store.locked { store.limits = limits }
        // An age limit is enforced at open: what went unused while the app was away goes now.
        if limits.maxAge != nil { store.queue.async { store.trimIfNeeded() } }
        return (resolved, store)
    }

    /// The folder `init(name:)` opens for `name`: inside the user's caches folder.
    static func defaultDirectory(name: String) -> URL {
        userCachesDirectory().appendingPathComponent(name, isDirectory: true)
    }

    /// The user's caches folder for this platform.
    static func userCachesDirectory() -> URL {
        #if canImport(Darwin)
        return FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
        #else
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg, isDirectory: true)
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".cache", isDirectory: true)
        #endif
    }

    // MARK: - Limits and state

    /// The limits in force, shared by every instance on this folder, as a configuration of this
    /// folder. Set it to change them while the cache runs; its `directory` stays this cache's
    /// (another one set here is ignored).
    ///
    /// ```swift
    /// cache.configuration.sizeLimit = 20 << 20   // the next store evicts down to 70 % of it
    /// ```
    public var configuration: Configuration {
        get {
            let limits = store.locked { store.limits }
            var configuration = Configuration(directory: directory)
            configuration.sizeLimit = limits.sizeLimit
            configuration.countLimit = limits.countLimit
            configuration.trimRatio = limits.trimRatio
            configuration.inlineThreshold = limits.inlineThreshold
            configuration.syncsFiles = limits.syncsFiles
            configuration.maxAge = limits.maxAge
            configuration.now = limits.now
            return configuration
        }
        set {
            let limits = newValue.limits
            store.locked { store.limits = limits }
        }
    }

    /// The bytes of all entries' data (metadata and the index itself not counted).
    public var totalSize: Int { store.totals.size }

    /// The number of entries.
    public var count: Int { store.totals.count }

    /// The last damage repaired, when this folder's store opened or since, or `nil`: a damaged
    /// index is moved aside (`DiskCacheError.databaseCorrupt` with where it went) and the cache
    /// starts again empty. Damage found after opening (a read or write the index refuses) is
    /// repaired the same way, and the operation runs again on the empty index.
    public var recovery: DiskCacheError? { store.recovery }

    /// Every entry without its bytes, most recently used first; for tools (`shashin cache list`).
    public func entries() throws -> [DiskCacheEntryInfo] {
        try store.listing()
    }

    /// Removes the entries unused for longer than `maxAge`, then evicts least-recently-used
    /// entries down to `trimRatio` of the limits if the cache is over either limit; now. This
    /// sweep also runs by itself in the background after a store and at open.
    public func trim() {
        store.queue.sync { store.trimIfNeeded() }
    }

    /// Writes the access times gathered in memory, ends the index's read session (so lookups see
    /// what other processes wrote until now), and waits for background work started so far
    /// (eviction, reconciling after a crash) to finish.
    public func flush() {
        store.flushAccessTimes()
        store.locked { store.index.database.endReadSession() }
        store.queue.sync {}
    }

    // MARK: - DataCaching

    /// The entry for `key`, or `nil`; counts as a use for eviction order. A file missing or of the
    /// wrong size (a torn write, a file removed by hand) is a miss, and its row is dropped.
    /// - Throws: `DiskCacheError` when the index or a file cannot be read.
    public func entry(forKey key: String) throws -> DataCacheEntry? {
        try store.entry(forKey: key)
    }

    /// Whether the index holds an entry for `key`; does not read the bytes or count as a use.
    public func containsEntry(forKey key: String) -> Bool {
        store.containsEntry(forKey: key)
    }

    /// Stores `data` and `metadata` for `key`, replacing any entry; all or nothing.
    /// - Throws: `DiskCacheError` (`isOutOfSpace`, `isReadOnly`, ...); the previous entry, if
    ///   any, is then still there.
    public func store(_ data: Data, metadata: Data?, forKey key: String) throws {
        try store.store(data, metadata: metadata, forKey: key)
    }

    /// Replaces the metadata of the entry for `key` (and its `storedAt`); nothing when absent.
    public func updateMetadata(_ metadata: Data?, forKey key: String) throws {
        try store.updateMetadata(metadata, forKey: key)
    }

    /// Replaces the metadata of the entry for `key` (and its `storedAt`) only while it is still
    /// `expected`, in one write to the index: the entry's bytes are not read, inline or in a file,
    /// and it does not count as a use.
    /// - Returns: whether it was replaced.
    public func updateMetadata(_ metadata: Data?, forKey key: String, ifCurrent expected: Data?) throws -> Bool {
        try store.updateMetadata(metadata, forKey: key, ifCurrent: expected)
    }

    /// Stores `data` and `metadata` for `key` filed under `group`, which
    /// ``removeEntries(inGroup:)`` then finds through an index of its own, without reading other
    /// rows; `nil` files it under none. As ``store(_:metadata:forKey:)`` otherwise.
    ///
    /// ```swift
    /// try cache.store(thumbnail, metadata: nil, forKey: "avatar-42 thumb(80)", group: "avatar-42")
    /// try cache.removeEntries(inGroup: "avatar-42")
    /// ```
    public func store(_ data: Data, metadata: Data?, forKey key: String, group: String?) throws {
        try store.store(data, metadata: metadata, forKey: key, group: group)
    }

    /// Removes every entry stored under `group`, through the group index: its cost depends on the
    /// group's entries, not on the cache's.
    public func removeEntries(inGroup group: String) throws {
        try store.removeEntries(inGroup: group)
    }

    /// Removes the entry for `key`, if any.
    public func removeEntry(forKey key: String) throws {
        try store.removeEntry(forKey: key)
    }

    /// Removes every entry, and any stray file in the cache's data folder.
    public func removeAll() throws {
        try store.removeAll()
    }
}
