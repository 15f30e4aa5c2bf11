import Foundation
#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

/// A prepared statement, reused for the connection's lifetime; used under the same lock as its
/// `SQLiteDatabase`. Parameters are 1-based and columns 0-based, as in SQLite's C API.
final class SQLiteStatement {
    /// `nil` once finalized (the index closed to be replaced): every call then fails or reads nothing.
    private var statement: OpaquePointer?
    private unowned let database: SQLiteDatabase
    /// Whether the statement only reads: any other ends the connection's read session first.
    private let isReadOnly: Bool
    /// The first failed bind since the last reset (a value over SQLite's size limit): `step` throws it.
    private var bindFailure = SQLITE_OK

    /// SQLite copies bound bytes with this destructor (`SQLITE_TRANSIENT` is a macro Swift cannot see).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(_ statement: OpaquePointer, database: SQLiteDatabase) {
        self.statement = statement
        self.database = database
        isReadOnly = sqlite3_stmt_readonly(statement) != 0
    }

    deinit { finalize() }

    /// Releases the statement now rather than at `deinit`, so its connection can close.
    func finalize() {
        if let statement { sqlite3_finalize(statement) }
        statement = nil
    }

    func bind(_ index: Int32, _ value: Int64) {
        guard let statement else { return check(SQLITE_MISUSE) }
        check(sqlite3_bind_int64(statement, index, value))
    }

    func bind(_ index: Int32, _ value: Int64?) {
        guard let value else {
            guard let statement else { return check(SQLITE_MISUSE) }
            return check(sqlite3_bind_null(statement, index))
        }
        bind(index, value)
    }

    func bind(_ index: Int32, _ value: Double) {
        guard let statement else { return check(SQLITE_MISUSE) }
        check(sqlite3_bind_double(statement, index, value))
    }

    private func check(_ status: Int32) {
        if status != SQLITE_OK && bindFailure == SQLITE_OK { bindFailure = status }
    }

    func bind(_ index: Int32, _ value: String?) {
        guard let statement else { return check(SQLITE_MISUSE) }
        guard var value else { check(sqlite3_bind_null(statement, index)); return }
        // An explicit length: a key may hold NUL characters, which a C string would cut at.
        let status = value.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return sqlite3_bind_text(statement, index, "", 0, Self.transient) }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { text in
                sqlite3_bind_text64(statement, index, text, UInt64(bytes.count), Self.transient, UInt8(SQLITE_UTF8))
            }
        }
        check(status)
    }

    func bind(_ index: Int32, _ value: Data?) {
        guard let statement else { return check(SQLITE_MISUSE) }
        guard let value else { check(sqlite3_bind_null(statement, index)); return }
        let status = value.withUnsafeBytes { bytes in
            // A zero-length blob needs `zeroblob` to be a blob rather than NULL.
            bytes.count == 0
                ? sqlite3_bind_zeroblob(statement, index, 0)
                : sqlite3_bind_blob64(statement, index, bytes.baseAddress, UInt64(bytes.count), Self.transient)
        }
        check(status)
    }

    /// Steps once: `true` when a row is ready to read, `false` when the statement is done.
    func step() throws(DiskCacheError) -> Bool {
        guard bindFailure == SQLITE_OK else { throw database.error(bindFailure, String(cString: sqlite3_errstr(bindFailure))) }
        guard let statement else { throw .database(code: SQLITE_MISUSE, message: "the index was closed") }
        if !isReadOnly { database.endReadSession() }
        let status = sqlite3_step(statement)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw database.error(status)
        }
    }

    /// Runs a statement that returns no rows, then resets it.
    func run() throws(DiskCacheError) {
        defer { reset() }
        _ = try step()
    }

    /// Makes the statement ready to run again and drops its bindings (and so the bytes they copied).
    func reset() {
        bindFailure = SQLITE_OK
        guard let statement else { return }
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }

    func int64(_ column: Int32) -> Int64 { statement.map { sqlite3_column_int64($0, column) } ?? 0 }

    func double(_ column: Int32) -> Double { statement.map { sqlite3_column_double($0, column) } ?? 0 }

    func isNull(_ column: Int32) -> Bool { statement.map { sqlite3_column_type($0, column) == SQLITE_NULL } ?? true }

    func string(_ column: Int32) -> String? {
        guard let statement, let text = sqlite3_column_text(statement, column) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// Whether the column's text is exactly the UTF-8 bytes of `string` (no `String` is made).
    func text(_ column: Int32, equals string: String) -> Bool {
        guard let statement, let text = sqlite3_column_text(statement, column) else { return false }
        let count = Int(sqlite3_column_bytes(statement, column))
        var string = string
        return string.withUTF8 { bytes in
            bytes.count == count && (count == 0 || memcmp(text, bytes.baseAddress!, count) == 0)
        }
    }

    func data(_ column: Int32) -> Data? {
        guard let statement, !isNull(column) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return Data() }
        return Data(bytes: bytes, count: count)
    }
}
