import Foundation

/// The disk cache's SQLite index: one row per entry, keyed by the first 8 bytes of the SHA-256
/// of its key (the rowid, so a lookup is one B-tree search) with the full key beside it to tell
/// hash collisions apart. Not thread-safe: `DiskStore` calls it only while holding its lock.
///
/// Columns are ordered so the inline bytes come last: SQLite keeps a large value in overflow
/// pages and reads them only when a query asks for that column or one after it. A lookup selects
/// everything but the bytes, then reads them with one copy through a blob handle. (A version 1
/// index, migrated, has the group column after them: read there only through its own index, or
/// when a row is deleted.)
final class DiskIndex {
    /// One row, without its bytes.
    struct Row {
        var id: Int64
        var key: String
        var size: Int
        var storedAt: Double
        var accessedAt: Double
        var file: String?
    }

    /// Bump when the schema changes: an index of another version is dropped and recreated, except
    /// version 1, which gains the `grp` column (its rows belong to no group).
    static let schemaVersion = 2

    let database: SQLiteDatabase
    private let selectEntry: SQLiteStatement
    private let selectHead: SQLiteStatement
    private let selectData: SQLiteStatement
    private let upsertEntry: SQLiteStatement
    private let updateMetadataStatement: SQLiteStatement
    private let replaceMetadataStatement: SQLiteStatement
    private let touchEntry: SQLiteStatement
    private let deleteEntry: SQLiteStatement
    private let deleteEntryWithFile: SQLiteStatement
    private let selectTotals: SQLiteStatement
    private let selectOldest: SQLiteStatement
    private let selectGroup: SQLiteStatement
    private let deleteGroupStatement: SQLiteStatement

    /// Opens the index, creating its tables. Throws `.databaseCorrupt` for a damaged file.
    init(path: String, busyTimeoutMilliseconds: Int32 = 5_000) throws(DiskCacheError) {
        let database = try SQLiteDatabase(path: path)
        // WAL: readers never wait for the writer, and a commit is one append. `synchronous=NORMAL`
        // in WAL mode keeps the index consistent through a crash or power loss (the last commits
        // may roll back, which leaves files without rows: reconciled on the next open).
        try database.execute("PRAGMA busy_timeout = \(busyTimeoutMilliseconds)")
        // Reads through a memory map rather than `pread` into SQLite's page cache: inline blobs of
        // 16–64 KB read 1.5–1.7× faster this way (BENCHMARKS.md). The map covers the whole index
        // (2 GB of address space, SQLite's own cap; pages beyond it fall back to `pread`, which
        // showed at 100k entries). Writes still go through write(2). (A map's known hazard, the
        // file truncated by another process while mapped, needs someone tampering with an
        // owner-only folder.)
        try database.execute("PRAGMA mmap_size = \(2 << 30)")
        // Debian builds SQLite with secure delete on, which rewrites every freed page with zeros
        // and made eviction several times slower; FAST still clears what costs no extra I/O.
        try database.execute("PRAGMA secure_delete = FAST")
        try database.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA temp_store = MEMORY")
        try Self.createSchema(database)
        self.database = database
        selectEntry = try database.prepare("SELECT key, size, stored_at, file, metadata FROM entries WHERE id = ?1")
        selectHead = try database.prepare("SELECT key, file FROM entries WHERE id = ?1")
        selectData = try database.prepare("SELECT data FROM entries WHERE id = ?1")
        upsertEntry = try database.prepare("""
            INSERT INTO entries (id, key, size, stored_at, accessed_at, file, metadata, data, grp)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            ON CONFLICT (id) DO UPDATE SET key = excluded.key, size = excluded.size, stored_at = excluded.stored_at,
                accessed_at = excluded.accessed_at, grp = excluded.grp, file = excluded.file, metadata = excluded.metadata,
                data = excluded.data
            """)
        updateMetadataStatement = try database.prepare("UPDATE entries SET metadata = ?3, stored_at = ?4 WHERE id = ?1 AND key = ?2")
        // `IS`: NULL matches NULL; blobs compare byte for byte. Neither reads nor rewrites `data`.
        replaceMetadataStatement = try database.prepare(
            "UPDATE entries SET metadata = ?3, stored_at = ?4 WHERE id = ?1 AND key = ?2 AND metadata IS ?5")
        touchEntry = try database.prepare("UPDATE entries SET accessed_at = ?2 WHERE id = ?1")
        deleteEntry = try database.prepare("DELETE FROM entries WHERE id = ?1")
        deleteEntryWithFile = try database.prepare("DELETE FROM entries WHERE id = ?1 AND file = ?2")
        selectTotals = try database.prepare("SELECT count, size FROM totals WHERE id = 0")
        selectOldest = try database.prepare("SELECT id, size, file FROM entries ORDER BY accessed_at LIMIT ?1")
        // Both read the group's partial index: a group's rows without a scan of the table.
        selectGroup = try database.prepare("SELECT id, file FROM entries WHERE grp = ?1")
        deleteGroupStatement = try database.prepare("DELETE FROM entries WHERE grp = ?1")
    }

    /// Finalizes the statements and closes the connection, so the file can be moved aside with
    /// nothing of SQLite's still pointing at it by name. Every later call fails.
    func close() {
        for statement in [selectEntry, selectHead, selectData, upsertEntry, updateMetadataStatement, replaceMetadataStatement, touchEntry,
                          deleteEntry, deleteEntryWithFile, selectTotals, selectOldest, selectGroup, deleteGroupStatement] {
            statement.finalize()
        }
        database.close()
    }

    private static func createSchema(_ database: SQLiteDatabase) throws(DiskCacheError) {
        let version = try database.prepare("PRAGMA user_version")
        let current = try version.step() ? Int(version.int64(0)) : 0
        version.reset()
        if current == 1 {
            // Version 1 lacks the group column; its rows keep their bytes and join no group.
            try database.execute("ALTER TABLE entries ADD COLUMN grp INTEGER")
        } else if current != 0 && current != schemaVersion {
            try database.execute("DROP TABLE IF EXISTS entries; DROP TABLE IF EXISTS totals")
        }
        // The totals row is kept by triggers in the same transaction as every change, so opening
        // a cache of any size reads one row instead of summing the table.
        try database.execute("""
            CREATE TABLE IF NOT EXISTS entries (
                id INTEGER PRIMARY KEY,
                key TEXT NOT NULL,
                size INTEGER NOT NULL,
                stored_at REAL NOT NULL,
                accessed_at REAL NOT NULL,
                grp INTEGER,
                file TEXT,
                metadata BLOB,
                data BLOB
            );
            CREATE INDEX IF NOT EXISTS entries_by_access ON entries (accessed_at);
            CREATE INDEX IF NOT EXISTS entries_by_group ON entries (grp) WHERE grp IS NOT NULL;
            CREATE TABLE IF NOT EXISTS totals (id INTEGER PRIMARY KEY CHECK (id = 0), count INTEGER NOT NULL, size INTEGER NOT NULL);
            INSERT OR IGNORE INTO totals (id, count, size) VALUES (0, 0, 0);
            CREATE TRIGGER IF NOT EXISTS entries_inserted AFTER INSERT ON entries BEGIN
                UPDATE totals SET count = count + 1, size = size + new.size WHERE id = 0;
            END;
            CREATE TRIGGER IF NOT EXISTS entries_deleted AFTER DELETE ON entries BEGIN
                UPDATE totals SET count = count - 1, size = size - old.size WHERE id = 0;
            END;
            CREATE TRIGGER IF NOT EXISTS entries_resized AFTER UPDATE OF size ON entries BEGIN
                UPDATE totals SET size = size - old.size + new.size WHERE id = 0;
            END;
            PRAGMA user_version = \(schemaVersion);
            """)
    }

    /// The entry for `id` if its key is `key`: its row, metadata and inline bytes (nil for a file).
    func entry(id: Int64, key: String) throws(DiskCacheError) -> (size: Int, storedAt: Double, file: String?, metadata: Data?, data: Data?)? {
        let row: (size: Int, storedAt: Double, file: String?, metadata: Data?)
        do {
            selectEntry.bind(1, id)
            defer { selectEntry.reset() }
            guard try selectEntry.step(), selectEntry.text(0, equals: key) else { return nil }
            row = (Int(selectEntry.int64(1)), selectEntry.double(2), selectEntry.string(3), selectEntry.data(4))
        }
        if row.file != nil { return (row.size, row.storedAt, row.file, row.metadata, nil) }
        // Inline: the bytes of the same row (in the same transaction: `DiskStore` looks up in a
        // read session). Bytes of another length than the row's are a miss, as for a file.
        let data = row.size == 0 ? Data() : try database.readBlob(table: "entries", column: "data", row: id) { () throws(DiskCacheError) in
            selectData.bind(1, id)
            defer { selectData.reset() }
            return try selectData.step() ? selectData.data(0) ?? Data() : Data()
        }
        guard data.count == row.size else { return nil }
        return (row.size, row.storedAt, nil, row.metadata, data)
    }

    /// The key and file name stored under `id`, whatever its key.
    func head(id: Int64) throws(DiskCacheError) -> (key: String, file: String?)? {
        selectHead.bind(1, id)
        defer { selectHead.reset() }
        guard try selectHead.step() else { return nil }
        return (selectHead.string(0) ?? "", selectHead.string(1))
    }

    /// Writes the row of `id`; `group` is the hash of its group's name, `nil` for none.
    func upsert(id: Int64, key: String, size: Int, storedAt: Double, accessedAt: Double, group: Int64?, file: String?,
                metadata: Data?, data: Data?) throws(DiskCacheError) {
        upsertEntry.bind(1, id)
        upsertEntry.bind(2, key)
        upsertEntry.bind(3, Int64(size))
        upsertEntry.bind(4, storedAt)
        upsertEntry.bind(5, accessedAt)
        upsertEntry.bind(6, file)
        upsertEntry.bind(7, metadata)
        upsertEntry.bind(8, data)
        upsertEntry.bind(9, group)
        try upsertEntry.run()
    }

    /// Deletes the rows of group `group`; returns their ids and the files they named.
    func deleteGroup(_ group: Int64) throws(DiskCacheError) -> [(id: Int64, file: String?)] {
        selectGroup.bind(1, group)
        var rows: [(id: Int64, file: String?)] = []
        do {
            defer { selectGroup.reset() }
            while try selectGroup.step() { rows.append((selectGroup.int64(0), selectGroup.string(1))) }
        }
        guard !rows.isEmpty else { return [] }
        deleteGroupStatement.bind(1, group)
        try deleteGroupStatement.run()
        return rows
    }

    /// Replaces the metadata of the entry for `key`; `true` when there was one.
    func updateMetadata(id: Int64, key: String, metadata: Data?, storedAt: Double) throws(DiskCacheError) -> Bool {
        updateMetadataStatement.bind(1, id)
        updateMetadataStatement.bind(2, key)
        updateMetadataStatement.bind(3, metadata)
        updateMetadataStatement.bind(4, storedAt)
        try updateMetadataStatement.run()
        return changes > 0
    }

    /// Replaces the metadata of the entry for `key` while it is still `expected`; `true` when it did.
    func replaceMetadata(id: Int64, key: String, metadata: Data?, expected: Data?, storedAt: Double) throws(DiskCacheError) -> Bool {
        replaceMetadataStatement.bind(1, id)
        replaceMetadataStatement.bind(2, key)
        replaceMetadataStatement.bind(3, metadata)
        replaceMetadataStatement.bind(4, storedAt)
        replaceMetadataStatement.bind(5, expected)
        try replaceMetadataStatement.run()
        return changes > 0
    }

    func touch(id: Int64, accessedAt: Double) throws(DiskCacheError) {
        touchEntry.bind(1, id)
        touchEntry.bind(2, accessedAt)
        try touchEntry.run()
    }

    func delete(id: Int64) throws(DiskCacheError) {
        deleteEntry.bind(1, id)
        try deleteEntry.run()
    }

    /// Deletes the row for `id` only while it still names `file`; `true` when it did.
    func delete(id: Int64, file: String) throws(DiskCacheError) -> Bool {
        deleteEntryWithFile.bind(1, id)
        deleteEntryWithFile.bind(2, file)
        try deleteEntryWithFile.run()
        return changes > 0
    }

    func deleteAll() throws(DiskCacheError) {
        try database.execute("DELETE FROM entries")
    }

    func totals() throws(DiskCacheError) -> (count: Int, size: Int) {
        defer { selectTotals.reset() }
        guard try selectTotals.step() else { return (0, 0) }
        return (Int(selectTotals.int64(0)), Int(selectTotals.int64(1)))
    }

    /// The totals row and the entries counted row by row, read in one statement (one snapshot;
    /// not prepared: run once per open), to check one against the other. Reads no entry's bytes:
    /// `size` comes before them.
    func totalsAgainstRows() throws(DiskCacheError) -> (kept: (count: Int, size: Int), counted: (count: Int, size: Int)) {
        database.endReadSession()
        let statement = try database.prepare("""
            SELECT (SELECT count FROM totals WHERE id = 0), (SELECT size FROM totals WHERE id = 0), count(*), total(size)
            FROM entries
            """)
        guard try statement.step() else { return ((0, 0), (0, 0)) }
        return ((Int(statement.int64(0)), Int(statement.int64(1))),
                (Int(statement.int64(2)), Int(exactly: statement.double(3).rounded()) ?? -1))
    }

    /// The `limit` least recently used rows, oldest first. Listings and eviction read the latest
    /// commits, never a read session's snapshot: they end it first.
    func oldest(limit: Int) throws(DiskCacheError) -> [(id: Int64, size: Int, file: String?)] {
        database.endReadSession()
        selectOldest.bind(1, Int64(limit))
        defer { selectOldest.reset() }
        var rows: [(id: Int64, size: Int, file: String?)] = []
        while try selectOldest.step() {
            rows.append((selectOldest.int64(0), Int(selectOldest.int64(1)), selectOldest.string(2)))
        }
        return rows
    }

    /// Up to `limit` rows last used before `cutoff` (seconds since 1970), oldest first: what an
    /// age limit removes. Uses the access-order index, like `oldest(limit:)`.
    func unused(before cutoff: Double, limit: Int) throws(DiskCacheError) -> [(id: Int64, size: Int, file: String?)] {
        database.endReadSession()
        let statement = try database.prepare("SELECT id, size, file FROM entries WHERE accessed_at < ?1 ORDER BY accessed_at LIMIT ?2")
        statement.bind(1, cutoff)
        statement.bind(2, Int64(limit))
        var rows: [(id: Int64, size: Int, file: String?)] = []
        while try statement.step() {
            rows.append((statement.int64(0), Int(statement.int64(1)), statement.string(2)))
        }
        return rows
    }

    /// Every row without its bytes, for listings and reconciling (not prepared: rarely run).
    func allRows() throws(DiskCacheError) -> [Row] {
        database.endReadSession()
        let statement = try database.prepare("SELECT id, key, size, stored_at, accessed_at, file FROM entries")
        var rows: [Row] = []
        while try statement.step() {
            rows.append(Row(id: statement.int64(0), key: statement.string(1) ?? "", size: Int(statement.int64(2)),
                            storedAt: statement.double(3), accessedAt: statement.double(4), file: statement.string(5)))
        }
        return rows
    }

    /// Every file name the index refers to, with its row's id and size.
    func allFiles() throws(DiskCacheError) -> [(id: Int64, size: Int, file: String)] {
        database.endReadSession()
        let statement = try database.prepare("SELECT id, size, file FROM entries WHERE file IS NOT NULL")
        var rows: [(id: Int64, size: Int, file: String)] = []
        while try statement.step() {
            rows.append((statement.int64(0), Int(statement.int64(1)), statement.string(2) ?? ""))
        }
        return rows
    }

    private var changes: Int32 { database.changes }
}
