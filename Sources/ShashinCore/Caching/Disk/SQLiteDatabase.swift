import Foundation
#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

/// One SQLite connection. Not thread-safe by itself: `DiskStore` uses it only while holding its
/// lock, and the connection is opened without SQLite's own mutex (`SQLITE_OPEN_NOMUTEX`).
final class SQLiteDatabase {
    let handle: OpaquePointer
    let path: String

    /// Opens (creating when missing) the database at `path`.
    init(path: String) throws(DiskCacheError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_close(handle)
            throw .cannotOpen(path: path, reason: "SQLite \(status): \(message)")
        }
        self.handle = handle
        self.path = path
        sqlite3_extended_result_codes(handle, 1)
    }

    /// Closed early, to be replaced: every later call fails with `SQLITE_MISUSE`.
    private(set) var isClosed = false

    deinit { close() }

    /// Closes the connection (once its statements are finalized, SQLite closes it at once).
    func close() {
        if !isClosed { sqlite3_close_v2(handle) }
        isClosed = true
    }

    private var closedError: DiskCacheError { .database(code: SQLITE_MISUSE, message: "the index was closed") }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int32 { sqlite3_changes(handle) }

    /// Runs one or more statements that return no rows we need.
    func execute(_ sql: String) throws(DiskCacheError) {
        guard !isClosed else { throw closedError }
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

