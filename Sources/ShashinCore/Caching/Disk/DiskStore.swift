import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Everything behind the `DiskCache` instances open on one folder in this process: the index
/// connection, the entry files, access times not yet written, and the background queue for
/// eviction and reconciling. `DiskStoreRegistry` hands every instance on a folder the same store.
///
/// Folder layout: `index.sqlite` (+ `-wal`, `-shm`), `lock`, `lock.gate`, and `data/` holding
/// one file per large entry, named `<32 hex digits of the key's SHA-256>-<16 random hex digits>`
/// (a new name for every write, so a reader holding an old name never sees a newer entry's
/// bytes) and `.tmp-*` files while they are written.
final class DiskStore: @unchecked Sendable { // mutable state and `index` only under `lock`; maintenance serialised on `queue`
    struct Limits {
        var sizeLimit: Int
        var countLimit: Int
        var trimRatio: Double
        var inlineThreshold: Int
        var syncsFiles: Bool
        /// Entries unused for longer than this many seconds are removed by the sweep; `nil`: no limit.
        var maxAge: TimeInterval? = nil
        /// The clock of stored and access times and of the age limit.
        var now: @Sendable () -> Date = { Date() }
    }

    let directory: String
    let dataDirectory: String
    let fileSystem: any DiskFileSystem
    let indexPath: String
    /// The last damage repaired (a damaged index moved aside), on opening or since; under `lock`.
    private var repairedDamage: DiskCacheError?

    let lock = Lock()
    /// Replaced by an empty index when this one turns out damaged (`withIndex`); under `lock`.
    private(set) var index: DiskIndex
    var limits: Limits
    /// Access times not yet written to the index, by row id: a read must not wait for a write.
    var pendingAccess: [Int64: Double] = [:]
    var accessFlushScheduled = false
    var trimScheduled = false
    /// When the last sweep for the age limit ran (seconds since 1970); under `lock`.
    var lastAgeSweep = -Double.infinity
    /// Names in `data/` being written by this process: reconciling must not take them for strays.
    var inFlight: Set<String> = []
    /// Set once the last `DiskCache` on the folder has gone: background work then does nothing,
    /// and the index is closed.
    var isClosed = false
    private var lastStamp = 0.0
    /// Whether a check that ends the index's read session is scheduled.
    private var readSessionCheckScheduled = false
    /// Runs that check: made on first use and re-armed for each session (cheaper on the lookup's
    /// path than a new `asyncAfter` each time).
    private var readSessionTimer: (any DispatchSourceTimer)?

    let queue = DispatchQueue(label: "shashin.disk-cache.maintenance", qos: .utility)
    let lockDescriptor: Int32

    /// How many unwritten access times trigger a write, and how long one may wait.
    static let accessBatchSize = 512
    static let accessFlushDelay: DispatchTimeInterval = .seconds(2)
    /// How long lookups share one read transaction of the index (`SQLiteDatabase`'s read
    /// session) before it ends: the longest another process's writes stay unseen here, and the
    /// longest this process holds back another's checkpoint of the WAL. This process's own writes
    /// end the session at once.
    static let readSessionNanoseconds: UInt64 = 10_000_000

    init(directory: String, limits: Limits, fileSystem: any DiskFileSystem) throws(DiskCacheError) {
        self.directory = directory
        dataDirectory = directory + "/data"
        self.fileSystem = fileSystem
        self.limits = limits
        try Self.makeDirectories(directory, fileSystem: fileSystem)
        try fileSystem.makeDirectory(dataDirectory, mode: 0o700)

        // Between processes: each holds a shared lock on `lock` while open (`FolderLock`); only
        // one that finds itself alone (an exclusive lock granted) may delete files it does not
        // know of. Opening holds `lock.gate` exclusively until the lock on `lock` is settled —
        // after tidying, for a process alone — so openers queue on the gate and only ever test
        // `lock`, never wait on it (a wait on a record lock can fail with EDEADLK when two
        // processes each tidy a folder and open the other's).
        let lockPath = directory + "/lock"
        let gatePath = directory + "/lock.gate"
        let gate = open(gatePath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard gate >= 0 else { throw .cannotOpen(path: gatePath, reason: String(cString: strerror(errno))) }
        _ = flock(gate, LOCK_EX)
        lockDescriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard lockDescriptor >= 0 else {
            close(gate)
            throw .cannotOpen(path: lockPath, reason: String(cString: strerror(errno)))
        }
        let alone = FolderLock.lockExclusively(lockDescriptor)

        indexPath = directory + "/index.sqlite"
        do {
            (index, repairedDamage) = try Self.openIndex(at: indexPath)
        } catch {
            close(lockDescriptor)
            close(gate)
            throw error
        }
        if alone {
            queue.async { [self] in
                reconcile()
                FolderLock.share(lockDescriptor)
                close(gate) // releases the gate: the next process to open finds this one
            }
        } else {
            close(gate)
        }
    }

    /// Closed by `DiskStoreRegistry` when the last `DiskCache` holding it goes; here only for a
    /// store that never reached the registry.
    deinit {
        if !locked({ isClosed }) { finishShuttingDown() }
    }

    /// Writes what is pending, closes the index and releases the folder lock, after background
    /// work in progress (reconciling, an eviction batch) ends. Work scheduled after this finds the
    /// store closed and does nothing. Called once, by `DiskStoreRegistry`, never on `queue`.
    func shutDown() {
        locked { isClosed = true } // eviction stops at its next batch
        queue.sync {}
        finishShuttingDown()
    }

    private func finishShuttingDown() {
        locked {
            isClosed = true
            readSessionTimer?.cancel()
            readSessionTimer = nil
            index.database.endReadSession()
            try? writePendingAccessTimes()
            pendingAccess.removeAll()
            index.close()
        }
        close(lockDescriptor)
    }

    // MARK: - Entries

    func entry(forKey key: String) throws(DiskCacheError) -> DataCacheEntry? {
        let id = Self.rowID(for: key)
        let found = try locked { () throws(DiskCacheError) -> (size: Int, storedAt: Double, file: String?, metadata: Data?, data: Data?)? in
            // Lookups share a read transaction for up to `readSessionNanoseconds`: row and inline
            // bytes come from one snapshot, and the lock on the WAL index is taken once, not per read.
            if index.database.beginReadSession() { scheduleReadSessionCheck(after: Self.readSessionNanoseconds) }
            do throws(DiskCacheError) {
                let found = try withIndex { index throws(DiskCacheError) in try index.entry(id: id, key: key) }
                if found != nil { noteAccess(id) }
                return found
            } catch {
                index.database.endReadSession()
                throw error
            }
        }
        guard let found else { return nil }

        let storedAt = Date(timeIntervalSince1970: found.storedAt)
        guard let file = found.file else {
            return DataCacheEntry(data: found.data ?? Data(), metadata: found.metadata, storedAt: storedAt)
        }
        // Read outside the lock: the file's name is unique to this write, so the worst a
        // concurrent removal can do is make it vanish (a miss).
        guard let data = try fileSystem.readFile(path(of: file), expectedSize: found.size) else {
            // Missing or not the size the index recorded (a torn or tampered file): a miss, and
            // the row goes unless a newer write has replaced it meanwhile.
            let removed = locked { (try? index.delete(id: id, file: file)) ?? false }
            if removed { fileSystem.removeFile(path(of: file)) }
            return nil
        }
        return DataCacheEntry(data: data, metadata: found.metadata, storedAt: storedAt)
    }

    func containsEntry(forKey key: String) -> Bool {
        let id = Self.rowID(for: key)
        return locked { (try? index.head(id: id))?.key == key }
    }

    /// Stores `data` for `key`, filed under `group` (a name; `nil` for none) when given.
    func store(_ data: Data, metadata: Data?, forKey key: String, group: String? = nil) throws(DiskCacheError) {
        let id = Self.rowID(for: key)
        let group = group.map(Self.groupID(for:))
        let (inline, sync) = locked { (data.count < limits.inlineThreshold, limits.syncsFiles) }
        if !inline {
            let name = Self.fileName(for: key)
            let temporary = ".tmp-" + Self.randomHex()
            locked { inFlight.formUnion([name, temporary]) }
            defer { locked { inFlight.subtract([name, temporary]) } }
            // Written under a temporary name, then renamed: the final name only ever holds
            // complete bytes, and the row naming it is committed after the rename.
            try fileSystem.writeNewFile(path(of: temporary), data: data, sync: sync)
            do {
                try fileSystem.rename(path(of: temporary), to: path(of: name))
            } catch {
                fileSystem.removeFile(path(of: temporary))
                throw error
            }
            do {
                try commit(id: id, key: key, group: group, data: nil, size: data.count, file: name, metadata: metadata)
            } catch {
                fileSystem.removeFile(path(of: name))
                throw error
            }
        } else {
            try commit(id: id, key: key, group: group, data: data, size: data.count, file: nil, metadata: metadata)
        }
    }

    /// Writes the row (replacing any under the same id), then removes the replaced file.
    private func commit(id: Int64, key: String, group: Int64?, data: Data?, size: Int, file: String?, metadata: Data?) throws(DiskCacheError) {
        let (replaced, startTrim) = try locked { () throws(DiskCacheError) -> (String?, Bool) in
            let now = limits.now().timeIntervalSince1970
            let (replaced, totals) = try withIndex { index throws(DiskCacheError) in
                try index.database.transaction { () throws(DiskCacheError) in
                    let replaced = try index.head(id: id)?.file
                    try index.upsert(id: id, key: key, size: size, storedAt: now, accessedAt: stamp(now), group: group,
                                     file: file, metadata: metadata, data: data)
                    return (replaced, try index.totals())
                }
            }
            pendingAccess[id] = nil
            let overLimit = totals.size > limits.sizeLimit || totals.count > limits.countLimit || ageSweepIsDue(now)
            let startTrim = overLimit && !trimScheduled
            if startTrim { trimScheduled = true }
            return (replaced, startTrim)
        }

        if let replaced, replaced != file { fileSystem.removeFile(path(of: replaced)) }
        if startTrim { queue.async { [self] in trimIfNeeded() } }
    }

    func updateMetadata(_ metadata: Data?, forKey key: String) throws(DiskCacheError) {
        let id = Self.rowID(for: key)
        let now = locked { limits.now() }.timeIntervalSince1970
        _ = try locked { () throws(DiskCacheError) in
            try withIndex { index throws(DiskCacheError) in try index.updateMetadata(id: id, key: key, metadata: metadata, storedAt: now) }
        }
    }

    /// One statement on the row: the entry's bytes, inline or in a file, are never read.
    func updateMetadata(_ metadata: Data?, forKey key: String, ifCurrent expected: Data?) throws(DiskCacheError) -> Bool {
        let id = Self.rowID(for: key)
        let now = locked { limits.now() }.timeIntervalSince1970
        return try locked { () throws(DiskCacheError) in
            try withIndex { index throws(DiskCacheError) in
                try index.replaceMetadata(id: id, key: key, metadata: metadata, expected: expected, storedAt: now)
            }
        }
    }

    func removeEntry(forKey key: String) throws(DiskCacheError) {
        let id = Self.rowID(for: key)
        let removedFile: String?? = try locked { () throws(DiskCacheError) -> String?? in
            index.database.endReadSession() // the row as it is now, not as a session saw it
            guard let head = try withIndex({ index throws(DiskCacheError) in try index.head(id: id) }), head.key == key else { return nil }
            try withIndex { index throws(DiskCacheError) in try index.delete(id: id) }
            pendingAccess[id] = nil
            return .some(head.file)
        }
        if case .some(.some(let file)) = removedFile { fileSystem.removeFile(path(of: file)) }
    }

    /// Removes every entry stored under `group`, through the index's group index (no scan).
    func removeEntries(inGroup group: String) throws(DiskCacheError) {
        let id = Self.groupID(for: group)
        let files = try locked { () throws(DiskCacheError) -> [String] in
            index.database.endReadSession()
            let rows = try withIndex { index throws(DiskCacheError) in
                try index.database.transaction { () throws(DiskCacheError) in try index.deleteGroup(id) }
            }
            for row in rows { pendingAccess[row.id] = nil }
            return rows.compactMap(\.file)
        }
        for file in files { fileSystem.removeFile(path(of: file)) }
    }

    func removeAll() throws(DiskCacheError) {
        let keep = try locked { () throws(DiskCacheError) -> Set<String> in
            try withIndex { index throws(DiskCacheError) in try index.deleteAll() }
            pendingAccess.removeAll()
            return inFlight
        }
        // Every file not being written right now, strays included.
        for name in try fileSystem.contentsOfDirectory(dataDirectory) where !keep.contains(name) {
            fileSystem.removeFile(path(of: name))
        }
    }

    var totals: (count: Int, size: Int) {
        locked { (try? withIndex { index throws(DiskCacheError) in try index.totals() }) ?? (count: 0, size: 0) }
    }

    /// Every entry without its bytes, most recently used first.
    func listing() throws(DiskCacheError) -> [DiskCacheEntryInfo] {
        let (rows, pending) = try locked { () throws(DiskCacheError) in
            (try withIndex { index throws(DiskCacheError) in try index.allRows() }, pendingAccess)
        }
        return rows.map { row in
            DiskCacheEntryInfo(key: row.key, size: row.size,
                               storedAt: Date(timeIntervalSince1970: row.storedAt),
                               lastAccess: Date(timeIntervalSince1970: pending[row.id] ?? row.accessedAt),
                               storage: row.file.map { .file(name: $0) } ?? .inline)
        }
        .sorted { $0.lastAccess > $1.lastAccess }
    }

    // MARK: - Damage found after opening

    /// The last damage repaired, on opening or since.
    var recovery: DiskCacheError? { locked { repairedDamage } }

    /// Runs `body` on the index; the caller holds `lock`. When `body` fails because the index is
    /// damaged in a way opening did not show (a broken row, page or totals row: a damaged file can
    /// open cleanly and then refuse every write), the index is moved
    /// aside, an empty one takes its place, and `body` runs once more, on that.
    func withIndex<R>(_ body: (DiskIndex) throws(DiskCacheError) -> R) throws(DiskCacheError) -> R {
        do {
            return try body(index)
        } catch where error.isDamage {
            try replaceDamagedIndex(error)
            return try body(index)
        }
    }

    /// Closes the damaged index (so SQLite, closing, cannot remove the new one's `-wal` by name),
    /// moves it aside and opens an empty one. Entries the old index named are lost; their files
    /// are strays, removed by the next open's reconciling. Called under `lock`.
    func replaceDamagedIndex(_ damage: DiskCacheError) throws(DiskCacheError) {
        index.close()
        pendingAccess.removeAll()
        let (fresh, repaired) = try Self.replaceIndex(at: indexPath, reason: damage.damageReason)
        index = fresh
        repairedDamage = repaired
    }

    // MARK: - Helpers

    /// The path of the data folder's file `name`. Names come from this store or from listing the
    /// data folder, so each is one path component; a name with a `/`, or `.`/`..`, can only come
    /// from a damaged or tampered index, and maps to a name this store never creates: the row
    /// reads as a missing file (a miss, and the row goes), and nothing outside the folder is
    /// read or removed.
    func path(of name: String) -> String {
        let isOneComponent = !name.isEmpty && name != "." && name != ".." && !name.utf8.contains(UInt8(ascii: "/"))
        return dataDirectory + "/" + (isOneComponent ? name : "not-an-entry")
    }

    /// Runs `body` holding `lock`.
    func locked<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R { try lock.locked(body) }

    /// A time for the access order, strictly after the last one handed out, so two uses in the
    /// same microsecond still have an order. Called under `lock`.
    func stamp(_ now: Double? = nil) -> Double {
        let now = now ?? limits.now().timeIntervalSince1970
        lastStamp = max(now, lastStamp.nextUp)
        return lastStamp
    }

    /// Ends the index's read session, from another thread, once it is `nanoseconds` old. Called
    /// under `lock`; one check at a time.
    private func scheduleReadSessionCheck(after nanoseconds: UInt64) {
        guard !readSessionCheckScheduled else { return }
        readSessionCheckScheduled = true
        let timer: any DispatchSourceTimer
        if let existing = readSessionTimer {
            timer = existing
        } else {
            timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
            timer.setEventHandler { [weak self] in self?.endReadSessionIfDue() }
            timer.activate()
            readSessionTimer = timer
        }
        timer.schedule(deadline: .now() + .nanoseconds(Int(nanoseconds)))
    }

    /// Ends the read session if it has lasted `readSessionNanoseconds`, else checks again when it will
    /// have (a session ended by a write and a newer one begun meanwhile).
    func endReadSessionIfDue() {
        locked {
            readSessionCheckScheduled = false
            guard !isClosed else { return }
            guard let start = index.database.readSessionStart else { return }
            let age = DispatchTime.now().uptimeNanoseconds &- start
            if age >= Self.readSessionNanoseconds {
                index.database.endReadSession()
            } else {
                scheduleReadSessionCheck(after: Self.readSessionNanoseconds - age)
            }
        }
    }

    /// Notes a use of row `id` for eviction order. Called under `lock`.
    private func noteAccess(_ id: Int64) {
        pendingAccess[id] = stamp()
        if pendingAccess.count >= Self.accessBatchSize {
            if !accessFlushScheduled {
                accessFlushScheduled = true
                queue.async { [weak self] in self?.flushAccessTimes() }
            }
        } else if pendingAccess.count == 1 && !accessFlushScheduled {
            accessFlushScheduled = true
            queue.asyncAfter(deadline: .now() + Self.accessFlushDelay) { [weak self] in self?.flushAccessTimes() }
        }
    }

    /// The index's number for a group's name: the row id of the name under a prefix keys never have.
    static func groupID(for group: String) -> Int64 {
        rowID(for: "\u{1}group " + group)
    }

    /// The row id for `key`: the first 8 bytes of its SHA-256.
    static func rowID(for key: String) -> Int64 {
        Int64(bitPattern: SHA256.prefix64(key))
    }

    /// A new file name for `key`: from its hash (never from its text) and a random suffix.
    static func fileName(for key: String) -> String {
        Hex.lowercase(SHA256.digest(key).prefix(16)) + "-" + randomHex()
    }

    static func randomHex() -> String {
        var random = SystemRandomNumberGenerator()
        let value = random.next() as UInt64
        return Hex.lowercase((0..<8).map { UInt8(truncatingIfNeeded: value >> UInt64($0 * 8)) })
    }

}
