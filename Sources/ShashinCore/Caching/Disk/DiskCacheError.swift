import Foundation
#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

/// What went wrong in a `DiskCache`. A failing disk cache never stops an image from loading: the
/// pipeline reports these through its events and loads from the network.
///
/// ```swift
/// do { try cache.store(data, metadata: nil, forKey: key) }
/// catch let error as DiskCacheError where error.isOutOfSpace { log("disk full: \(error)") }
/// ```
public enum DiskCacheError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The cache's folder or index could not be opened or created.
    case cannotOpen(path: String, reason: String)
    /// A file operation failed; `errno` is the system's error number (`ENOSPC`, `EROFS`, ...).
    case io(operation: String, path: String, errno: Int32, message: String)
    /// The SQLite index refused an operation; `code` is SQLite's (extended) result code.
    case database(code: Int32, message: String)
    /// The index file is damaged. When found on open, the damaged file was moved to
    /// `movedAsideTo` and an empty index created in its place (the cache starts empty).
    case databaseCorrupt(path: String, movedAsideTo: String?, reason: String)

    /// The failure was a full disk or quota (`ENOSPC`, `EDQUOT`, `SQLITE_FULL`).
    public var isOutOfSpace: Bool {
        switch self {
        case .io(_, _, let code, _): return code == ENOSPC || code == EDQUOT
        case .database(let code, _): return code & 0xff == SQLITE_FULL
        default: return false
        }
    }

    /// The failure was a folder or file the process may not write (`EROFS`, `EACCES`, `EPERM`,
    /// `SQLITE_READONLY`).
    public var isReadOnly: Bool {
        switch self {
        case .io(_, _, let code, _): return code == EROFS || code == EACCES || code == EPERM
        case .database(let code, _): return code & 0xff == SQLITE_READONLY
        default: return false
        }
    }

    /// The failure means the index itself is damaged, not the disk or the folder: SQLite found
    /// it corrupt or not a database, or one of our own statements, which a sound index always
    /// accepts, was refused (a table or column missing, a constraint broken, a value of the wrong
    /// type), as happens with damaged files that open cleanly.
    var isDamage: Bool {
        switch self {
        case .databaseCorrupt: return true
        case .database(let code, _):
            return [SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_CONSTRAINT, SQLITE_MISMATCH, SQLITE_ERROR, SQLITE_FORMAT]
                .contains(code & 0xff)
        default: return false
        }
    }

    /// The failure comes from the machine — the disk, the folder's permissions, memory, a lock
    /// another process holds — rather than from the index's bytes. Opening treats every other
    /// failure as damage: a damaged file's schema can fail to read with codes no list of damage
    /// codes names ("string or blob too big", `SQLITE_TOOBIG`).
    var isEnvironmental: Bool {
        switch self {
        case .cannotOpen, .io: return true
        case .databaseCorrupt: return false
        case .database(let code, _):
            return [SQLITE_CANTOPEN, SQLITE_IOERR, SQLITE_READONLY, SQLITE_FULL, SQLITE_NOMEM, SQLITE_BUSY, SQLITE_LOCKED,
                    SQLITE_PERM, SQLITE_AUTH, SQLITE_NOLFS, SQLITE_INTERRUPT].contains(code & 0xff)
        }
    }

    /// What SQLite said about the damage.
    var damageReason: String {
        switch self {
        case .databaseCorrupt(_, _, let reason): return reason
        case .database(_, let message): return message
        default: return description
        }
    }

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            return "Cannot open the disk cache at \(path): \(reason)"
        case .io(let operation, let path, let code, let message):
            return "Disk cache I/O failed: \(operation) \(path): \(message) (errno \(code))"
        case .database(let code, let message):
            return "Disk cache index error: \(message) (SQLite \(code))"
        case .databaseCorrupt(let path, let movedAsideTo, let reason):
            if let movedAsideTo {
                return "The disk cache index \(path) was damaged (\(reason)); moved aside to \(movedAsideTo) and recreated empty"
            }
            return "The disk cache index \(path) is damaged: \(reason)"
        }
    }

    /// The `.io` error for the current `errno`.
    static func posix(_ operation: String, _ path: String, errno code: Int32 = errno) -> DiskCacheError {
        .io(operation: operation, path: path, errno: code, message: String(cString: strerror(code)))
    }
}
