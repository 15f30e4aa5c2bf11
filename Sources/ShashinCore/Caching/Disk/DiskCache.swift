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

    /// Opens (creating when missing) the cache in `directory`.
    ///
    /// - Parameters:
    ///   - sizeLimit: the most bytes of entry data to keep; default 150 MB.
    ///   - countLimit: the most entries to keep; default unlimited.
    ///   - trimRatio: the fraction of the limits eviction brings the cache down to; default 0.7,
    ///     clamped to 0...1.
    ///   - inlineThreshold: entries smaller than this many bytes live in the index; default 96 KB.
    ///   - syncsFiles: flush each entry file to the disk before its row is committed, so even a
    ///     power loss cannot leave a row naming unwritten bytes; default `true`. Without it a
    ///     crashed process still never leaves torn entries; a power cut may cost entries (as misses).
    ///   - maxAge: entries not used (read or stored) for longer than this many seconds are removed
    ///     — at open, and by the background sweep that enforces the limits (which a store also
    ///     starts when the last age sweep is more than an eighth of `maxAge`, at most an hour,
    ///     old); default `nil`: no age limit.
    ///   - now: the clock of stored and access times and of `maxAge`; default the system clock.
    ///
    /// Instances on the same folder share one store, and these settings are the store's: the
    /// latest instance's settings apply to all of them.
    ///
    /// - Throws: `DiskCacheError.cannotOpen` when the folder or the index cannot be created or
    ///   opened. A damaged index is not an error: it is moved aside and replaced by an empty one,
    ///   and `recovery` says so.
    public init(directory: URL, sizeLimit: Int = DiskCache.defaultSizeLimit, countLimit: Int = .max,
                trimRatio: Double = 0.7, inlineThreshold: Int = DiskCache.defaultInlineThreshold,
                syncsFiles: Bool = true, maxAge: TimeInterval? = nil,
                now: @escaping @Sendable () -> Date = { Date() }) throws {
        let limits = DiskStore.Limits(sizeLimit: max(0, sizeLimit), countLimit: max(0, countLimit),
                                      trimRatio: min(1, max(0, trimRatio)), inlineThreshold: max(0, inlineThreshold),
                                      syncsFiles: syncsFiles, maxAge: maxAge.map { max(0, $0) }, now: now)
        (self.directory, store) = try Self.open(directory, limits: limits, fileSystem: PosixFileSystem())
    }

    /// Tests inject a file layer that fails the way a full disk or a read-only folder does.
    init(directory: URL, limits: DiskStore.Limits, fileSystem: any DiskFileSystem) throws(DiskCacheError) {
        (self.directory, store) = try Self.open(directory, limits: limits, fileSystem: fileSystem)
    }

    /// The last instance on a folder closes its store: the folder lock is free when this returns.
    deinit { DiskStoreRegistry.release(directory.path) }

    /// Opens (creating when missing) the cache named `name` in the user's caches folder:
    /// `FileManager`'s caches directory on Apple platforms; `$XDG_CACHE_HOME`, else `~/.cache`,
    /// elsewhere. The other parameters are those of `init(directory:...)`.
    ///
    /// - Throws: `DiskCacheError.cannotOpen` when `name` is not a single path component (empty,
    ///   `.`, `..`, or holding `/` or NUL), or when the folder cannot be opened.
    public convenience init(name: String, sizeLimit: Int = DiskCache.defaultSizeLimit, countLimit: Int = .max,
                            trimRatio: Double = 0.7, inlineThreshold: Int = DiskCache.defaultInlineThreshold,
                            syncsFiles: Bool = true, maxAge: TimeInterval? = nil) throws {
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.contains("\0") else {
            throw DiskCacheError.cannotOpen(path: name, reason: "a cache name must be a single path component")
        }
        try self.init(directory: Self.userCachesDirectory().appendingPathComponent(name, isDirectory: true),
                      sizeLimit: sizeLimit, countLimit: countLimit, trimRatio: trimRatio,
                      inlineThreshold: inlineThreshold, syncsFiles: syncsFiles, maxAge: maxAge)
    }

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
    public static func defaultDirectory(name: String) -> URL {
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

    /// The most bytes of entry data to keep; shared by every instance on this folder.
    public var sizeLimit: Int {
        get { store.locked { store.limits.sizeLimit } }
        set { store.locked { store.limits.sizeLimit = max(0, newValue) } }
    }

    /// The most entries to keep; shared by every instance on this folder.
    public var countLimit: Int {
        get { store.locked { store.limits.countLimit } }
        set { store.locked { store.limits.countLimit = max(0, newValue) } }
    }

    /// The fraction of the limits that eviction brings the cache down to (0...1).
    public var trimRatio: Double {
        get { store.locked { store.limits.trimRatio } }
        set { store.locked { store.limits.trimRatio = min(1, max(0, newValue)) } }
    }

    /// Entries unused for longer than this many seconds are removed by the sweep; `nil`: no age limit.
    public var maxAge: TimeInterval? {
        get { store.locked { store.limits.maxAge } }
        set { store.locked { store.limits.maxAge = newValue.map { max(0, $0) } } }
    }

    /// Entries smaller than this many bytes are stored in the index, larger ones in files.
    public var inlineThreshold: Int {
        get { store.locked { store.limits.inlineThreshold } }
        set { store.locked { store.limits.inlineThreshold = max(0, newValue) } }
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

    /// Removes the entry for `key`, if any.
    public func removeEntry(forKey key: String) throws {
        try store.removeEntry(forKey: key)
    }

    /// Removes every entry, and any stray file in the cache's data folder.
    public func removeAll() throws {
        try store.removeAll()
    }
}
