import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

/// Opening, reconciling, eviction and access-time writes: the store's work off the caller's path.
extension DiskStore {
    // MARK: - Opening

    /// Creates the folder and any missing parents, owner-only.
    static func makeDirectories(_ path: String, fileSystem: any DiskFileSystem) throws(DiskCacheError) {
        var partial = ""
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            partial += "/" + component
            do {
                try fileSystem.makeDirectory(partial, mode: 0o700)
            } catch {
                throw .cannotOpen(path: path, reason: error.description)
            }
        }
    }

    /// Opens the index; a damaged one is moved aside and an empty one created in its place.
    static func openIndex(at path: String) throws(DiskCacheError) -> (DiskIndex, DiskCacheError?) {
        // Created owner-only before SQLite sees it: SQLite gives its -wal and -shm files the
        // database file's permissions.
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if descriptor >= 0 { close(descriptor) }
        do {
            return (try DiskIndex(path: path), nil)
        } catch where !error.isEnvironmental || !environmentExplains(error, path: path) {
            return try replaceIndex(at: path, reason: error.damageReason)
        } catch {
            throw .cannotOpen(path: path, reason: error.description)
        }
    }

    /// Whether the machine bears out an "environmental" failure while opening the index at
    /// `path`. SQLite says "full" and "read-only" for damaged files too (page numbers that run
    /// into its page limit; a header's write version above 2), so
    /// on a disk with room to spare, or with the file and its folder writable, those are damage.
    static func environmentExplains(_ error: DiskCacheError, path: String) -> Bool {
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        if error.isOutOfSpace {
            var status = statvfs()
            guard statvfs(folder.isEmpty ? "/" : folder, &status) == 0 else { return true }
            return UInt64(status.f_bavail) * UInt64(status.f_frsize) < 16 << 20
        }
        if error.isReadOnly {
            // Only the plain code: the extended ones (a WAL another process cannot let us
            // recover or lock, a file moved away) are about the machine, not the header.
            guard case .database(SQLITE_READONLY, _) = error else { return true }
            return access(path, W_OK) != 0 || access(folder.isEmpty ? "/" : folder, W_OK) != 0
        }
        return true
    }

    /// Moves the damaged index at `path` (with its `-wal` and `-shm`) aside to `<path>.damaged`,
    /// replacing an earlier one there, and opens an empty index in its place. No connection may
    /// be open on it.
    static func replaceIndex(at path: String, reason: String) throws(DiskCacheError) -> (DiskIndex, DiskCacheError) {
        let aside = path + ".damaged"
        for suffix in ["", "-wal", "-shm"] { unlink(aside + suffix) }
        guard systemRename(path, aside) == 0 else {
            throw .cannotOpen(path: path, reason: "damaged (\(reason)) and cannot be moved aside: \(String(cString: strerror(errno)))")
        }
        for suffix in ["-wal", "-shm"] { _ = systemRename(path + suffix, aside + suffix) }
        let fresh = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if fresh >= 0 { close(fresh) }
        do {
            return (try DiskIndex(path: path), .databaseCorrupt(path: path, movedAsideTo: aside, reason: reason))
        } catch {
            throw .cannotOpen(path: path, reason: error.description)
        }
    }

    // MARK: - Reconciling

    /// Brings the index and the files back into agreement after a crash: rows whose file is
    /// missing or of the wrong size go, and so do files no row names (strays, temporary files
    /// of a killed writer). Runs on `queue`, only when this process has the folder to itself.
    func reconcile() {
        locked { verifyTotals() }
        // Listed before the rows are read: a file renamed into place after this listing is
        // either committed (in the rows) or still being written (in `inFlight`) by then.
        guard let names = try? fileSystem.contentsOfDirectory(dataDirectory) else { return }
        guard let (rows, writing) = try? locked({ () throws(DiskCacheError) in (try index.allFiles(), inFlight) }) else { return }

        let named = Set(rows.map(\.file))
        for name in names where !named.contains(name) && !writing.contains(name) {
            fileSystem.removeFile(path(of: name))
        }
        // Each row was committed after its file was complete, so a file missing or of another
        // size now was lost or damaged (or removed meanwhile, with its row).
        let damaged = rows.filter { row in
            var status = stat()
            return stat(path(of: row.file), &status) != 0 || Int(status.st_size) != row.size
        }
        guard !damaged.isEmpty else { return }
        let gone = locked {
            damaged.filter { (try? index.delete(id: $0.id, file: $0.file)) ?? false }
        }
        for row in gone { fileSystem.removeFile(path(of: row.file)) }
    }

    /// Replaces the index when its totals row disagrees with its rows counted one by one. Triggers
    /// keep the two equal in every transaction, so a difference is damage SQLite did not report:
    /// an index whose rows are out of order (new entries stored, then never found again) can carry
    /// totals far from its rows, which would keep eviction emptying the cache after every store
    /// (`DiskCacheDamagedIndexTests` opens such a file). Called under `lock`, off the caller's
    /// path (a scan of the rows, not of their bytes).
    func verifyTotals() {
        do {
            let (kept, counted) = try withIndex { index throws(DiskCacheError) in try index.totalsAgainstRows() }
            guard kept != counted else { return }
            try replaceDamagedIndex(.databaseCorrupt(
                path: indexPath, movedAsideTo: nil,
                reason: "the totals row (\(kept.count) entries, \(kept.size) bytes) disagrees with the rows (\(counted.count), \(counted.size))"))
        } catch {
            // Not damage (a busy or full disk): the next open checks again.
        }
    }

    // MARK: - Eviction

    /// Removes the entries unused for longer than `maxAge`, when there is one, then evicts
    /// least-recently-used entries down to `trimRatio` of the limits when over either limit. Runs
    /// on `queue`.
    func trimIfNeeded() {
        let (sizeTarget, countTarget, over, cutoff): (Int, Int, Bool, Double?) = locked {
            trimScheduled = false
            guard !isClosed else { return (0, 0, false, nil) }
            try? writePendingAccessTimes()
            let totals = (try? index.totals()) ?? (count: 0, size: 0)
            let sizeTarget = Self.target(limits.sizeLimit, limits.trimRatio)
            let countTarget = Self.target(limits.countLimit, limits.trimRatio)
            var cutoff: Double?
            if let maxAge = limits.maxAge {
                let now = limits.now().timeIntervalSince1970
                lastAgeSweep = now
                cutoff = now - maxAge
            }
            return (sizeTarget, countTarget, totals.size > limits.sizeLimit || totals.count > limits.countLimit, cutoff)
        }
        if let cutoff { removeUnused(before: cutoff) }
        guard over else { return }
        // In batches, so readers wait for one short transaction at a time, not the whole sweep.
        while true {
            let evicted: [String]? = locked {
                // Reads between batches count: an entry read while the sweep runs is not its victim.
                guard !isClosed else { return nil }
                try? writePendingAccessTimes()
                guard let totals = try? index.totals(), totals.size > sizeTarget || totals.count > countTarget,
                      let oldest = try? index.oldest(limit: 256), !oldest.isEmpty else { return nil }
                var size = totals.size, count = totals.count
                var victims: [(id: Int64, size: Int, file: String?)] = []
                for row in oldest where size > sizeTarget || count > countTarget {
                    victims.append(row)
                    size -= row.size
                    count -= 1
                }
                return deleteRows(victims)
            }
            guard let evicted else { return }
            for file in evicted { fileSystem.removeFile(path(of: file)) }
        }
    }

    /// Removes the entries last used before `cutoff`, in batches. Runs on `queue`.
    func removeUnused(before cutoff: Double) {
        while true {
            let removed: [String]? = locked {
                guard !isClosed else { return nil }
                // Reads since the last batch count: an entry read now is not unused.
                try? writePendingAccessTimes()
                guard let victims = try? index.unused(before: cutoff, limit: 256), !victims.isEmpty else { return nil }
                return deleteRows(victims)
            }
            guard let removed else { return }
            for file in removed { fileSystem.removeFile(path(of: file)) }
        }
    }

    /// Deletes `rows` from the index in one transaction and forgets their pending access times;
    /// the files the deleted rows named, for the caller to remove once `lock` is released, or
    /// `nil` when the transaction failed (nothing deleted). Called under `lock`.
    private func deleteRows(_ rows: [(id: Int64, size: Int, file: String?)]) -> [String]? {
        do {
            try index.database.transaction { () throws(DiskCacheError) in
                for row in rows { try index.delete(id: row.id) }
            }
        } catch {
            return nil
        }
        for row in rows { pendingAccess[row.id] = nil }
        return rows.compactMap(\.file)
    }

    /// Whether a store should start a sweep for the age limit: one is set and the last sweep
    /// ran more than an eighth of it (at most an hour) ago. Called under `lock`.
    func ageSweepIsDue(_ now: Double) -> Bool {
        guard let maxAge = limits.maxAge else { return false }
        return now - lastAgeSweep >= min(maxAge / 8, 3600)
    }

    /// `ratio` of `limit`. `Double(Int.max)` rounds up to 2^63, which `Int` cannot hold, so an
    /// unlimited count (or size) with a ratio of 1 stays `Int.max` rather than trap.
    static func target(_ limit: Int, _ ratio: Double) -> Int {
        let target = Double(limit) * ratio
        return target < Double(Int.max) ? Int(target) : Int.max
    }

    // MARK: - Access times

    /// Writes the access times gathered since the last write. Runs on `queue`.
    func flushAccessTimes() {
        locked {
            accessFlushScheduled = false
            guard !isClosed else { return }
            try? writePendingAccessTimes()
        }
    }

    /// Writes pending access times in one transaction. Called under `lock`. On failure (a full
    /// disk) they are dropped: eviction order is a hint, not data.
    func writePendingAccessTimes() throws(DiskCacheError) {
        guard !pendingAccess.isEmpty else { return }
        let pending = pendingAccess
        pendingAccess.removeAll(keepingCapacity: true)
        try index.database.transaction { () throws(DiskCacheError) in
            for (id, time) in pending { try index.touch(id: id, accessedAt: time) }
        }
    }
}
