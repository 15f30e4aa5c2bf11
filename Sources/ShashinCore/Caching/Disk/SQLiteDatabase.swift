import Foundation
#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

/// One SQLite connection. Not thread-safe by itself: `DiskStore` uses it only while holding its
/// lock, and the connection is opened without SQLite's own mutex (`SQLITE_OPEN_NOMUTEX`).
///
/// **Read sessions.** In WAL mode every statement run outside a transaction takes a shared lock
/// on a read mark of the WAL index and releases it when reset: two `fcntl` calls, about 2 µs of a
/// 10 µs cache read on our machine (BENCHMARKS.md, "Disk cache"). `beginReadSession()` opens a
/// read transaction that the lookups after it share until `endReadSession()`. A session sees the
/// index as it was when it began, so anything that writes ends it first (`execute`, and `step` of
/// any statement that is not read-only): this connection's own writes are always seen; another
/// process's writes are seen once the session ends (`DiskStore` bounds its length).
final class SQLiteDatabase {
    let handle: OpaquePointer
    let path: String
    /// When the open read session began (`DispatchTime` uptime, ns), or `nil` when none is open.
    private(set) var readSessionStart: UInt64?
    private var beginStatement: OpaquePointer?
    private var commitStatement: OpaquePointer?
    /// The handle `readBlob` keeps open during a read session, moved from row to row.
    private var blob: (handle: OpaquePointer, table: String, column: String)?
    /// `readBlob` calls since the read session began.
    private var blobReadsInSession = 0

    /// Opens (creating when missing) the database at `path`.
    init(path: String) throws(DiskCacheError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_close(handle)
            throw .cannotOpen(path: path, reason: "SQLite \(status): \(message)")
        }
        self.handle = handle
        self.path = path
        sqlite3_extended_result_codes(handle, 1)
        // Transaction control needs no schema: these prepare on any database.
        sqlite3_prepare_v3(handle, "BEGIN", -1, UInt32(SQLITE_PREPARE_PERSISTENT), &beginStatement, nil)
        sqlite3_prepare_v3(handle, "COMMIT", -1, UInt32(SQLITE_PREPARE_PERSISTENT), &commitStatement, nil)
    }

    /// Closed early, to be replaced: every later call fails with `SQLITE_MISUSE`.
    private(set) var isClosed = false

    deinit { close() }

    /// Ends any read session and closes the connection (once its statements are finalized,
    /// SQLite closes it at once).
    func close() {
        guard !isClosed else { return }
        endReadSession()
        sqlite3_finalize(beginStatement)
        sqlite3_finalize(commitStatement)
        beginStatement = nil
        commitStatement = nil
        sqlite3_close_v2(handle)
        isClosed = true
    }

    private var closedError: DiskCacheError { .database(code: SQLITE_MISUSE, message: "the index was closed") }

    // MARK: - Read sessions

    /// Opens a read session unless one is open or a transaction is under way; `true` when it
    /// opened one. (`BEGIN` takes no lock: the first read does, and keeps it until the end.)
    func beginReadSession() -> Bool {
        guard readSessionStart == nil, let beginStatement, sqlite3_get_autocommit(handle) != 0 else { return false }
        let status = sqlite3_step(beginStatement)
        sqlite3_reset(beginStatement)
        guard status == SQLITE_DONE else { return false }
        readSessionStart = DispatchTime.now().uptimeNanoseconds
        blobReadsInSession = 0
        return true
    }

    /// Ends the read session, if one is open: later reads see every commit made since.
    func endReadSession() {
        guard readSessionStart != nil else { return }
        readSessionStart = nil
        closeBlob()
        guard let commitStatement else { return }
        let status = sqlite3_step(commitStatement)
        sqlite3_reset(commitStatement)
        // A read-only COMMIT does not fail in practice; never leave the transaction open if it does.
        if status != SQLITE_DONE && sqlite3_get_autocommit(handle) == 0 {
            sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
        }
    }

    // MARK: - Blobs

    /// The whole blob in `column` of the row `row` of `table`, copied once, from the database's
    /// pages straight into the memory the returned `Data` owns (a `SELECT` of the column copies
    /// twice: into SQLite's buffer, then into the `Data`). Within a read session the blob handle
    /// stays open and moves from row to row (`sqlite3_blob_reopen`, a B-tree seek); outside one it
    /// is closed again. The row must hold a blob or text (`SQLITE_ERROR` for NULL or a missing row).
    ///
    /// Opening a handle compiles a small program, which costs more than the copy it saves when it
    /// serves one read: the first read of a session (and any read outside one) calls `first`
    /// instead, a `SELECT` of the column; the second opens the handle that the rest move.
    func readBlob(table: String, column: String, row: Int64, first: () throws(DiskCacheError) -> Data) throws(DiskCacheError) -> Data {
        guard !isClosed else { throw closedError }
        blobReadsInSession += 1
        if blob == nil && (readSessionStart == nil || blobReadsInSession == 1) { return try first() }
        let handle = try blobHandle(table: table, column: column, row: row)
        let kept = blob?.handle == handle
        defer { if !kept { sqlite3_blob_close(handle) } }
        let count = Int(sqlite3_blob_bytes(handle))
        guard count > 0 else { return Data() }
        // Uninitialised memory handed to Data without a copy: `Data(count:)` would zero it first.
        guard let buffer = malloc(count) else { throw .database(code: SQLITE_NOMEM, message: "out of memory for a \(count)-byte blob") }
        let status = sqlite3_blob_read(handle, buffer, Int32(count), 0)
        guard status == SQLITE_OK else {
            free(buffer)
            let failure = error(status)
            if kept { closeBlob() }
            throw failure
        }
        return Data(bytesNoCopy: buffer, count: count, deallocator: .free)
    }

    /// A blob handle on the row: the session's, moved there, or a new one (kept for the session).
    private func blobHandle(table: String, column: String, row: Int64) throws(DiskCacheError) -> OpaquePointer {
        if let open = blob, open.table == table, open.column == column {
            let status = sqlite3_blob_reopen(open.handle, row)
            guard status == SQLITE_OK else {
                let failure = error(status)
                closeBlob() // a handle that failed to move is aborted for good
                throw failure
            }
            return open.handle
        }
        closeBlob()
        var opened: OpaquePointer?
        let status = sqlite3_blob_open(handle, "main", table, column, row, 0, &opened)
        guard status == SQLITE_OK, let opened else {
            let failure = error(status)
            sqlite3_blob_close(opened)
            throw failure
        }
        if readSessionStart != nil { blob = (opened, table, column) }
        return opened
    }

    private func closeBlob() {
        guard let open = blob else { return }
        blob = nil
        sqlite3_blob_close(open.handle)
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int32 { sqlite3_changes(handle) }

    /// Runs one or more statements that return no rows we need; ends any read session first.
    func execute(_ sql: String) throws(DiskCacheError) {
        guard !isClosed else { throw closedError }
        endReadSession()
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard status == SQLITE_OK else {
            throw error(status, message.map { String(cString: $0) })
        }
    }

    func prepare(_ sql: String) throws(DiskCacheError) -> SQLiteStatement {
        guard !isClosed else { throw closedError }
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else { throw error(status) }
        return SQLiteStatement(statement, database: self)
    }

    /// Runs `body` in one transaction, committing when it returns and rolling back when it throws.
    func transaction<R>(_ body: () throws(DiskCacheError) -> R) throws(DiskCacheError) -> R {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// The typed error for a failed call that returned `status`.
    func error(_ status: Int32, _ message: String? = nil) -> DiskCacheError {
        let text = message ?? String(cString: sqlite3_errmsg(handle))
        switch status & 0xff {
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            return .databaseCorrupt(path: path, movedAsideTo: nil, reason: text)
        default:
            return .database(code: status, message: text)
        }
    }
}

