import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The folder's lock between processes: a POSIX record lock on the whole `lock` file, held
/// shared by every process with the folder open and exclusively by one that opened it alone
/// while it tidies.
///
/// A record lock belongs to the process, not to a descriptor: a child holding a copy of the
/// descriptor (every spawned child does, from its fork until its exec) holds no lock, so closing
/// this process's descriptor frees the folder at once. A `flock` lock belongs to the open file
/// description, which a child's copy keeps alive: a reopen right after closing could then find
/// the folder "in use" and skip tidying. The price of record locks: closing *any* descriptor of
/// the file releases all of this process's locks on it, so a process opens it once, through its
/// one store for the folder (`DiskStoreRegistry`).
enum FolderLock {
    /// Takes the lock exclusively when no other process holds it (`true`), else shared (`false`).
    /// Called holding the gate: no other opener is between its exclusive and shared lock, so the
    /// shared lock is granted without waiting. Where locks are unsupported, reports this process
    /// alone rather than never tidy.
    static func lockExclusively(_ descriptor: Int32) -> Bool {
        if set(descriptor, F_WRLCK) == 0 { return true }
        guard errno == EAGAIN || errno == EACCES else { return true }
        _ = set(descriptor, F_RDLCK)
        return false
    }

    /// Turns this process's exclusive lock into a shared one, in one step.
    static func share(_ descriptor: Int32) {
        _ = set(descriptor, F_RDLCK)
    }

    /// `fcntl(F_SETLK)` over the whole file; 0, or -1 with `errno` set.
    private static func set(_ descriptor: Int32, _ type: Int32) -> Int32 {
        var request = flock()
        request.l_type = Int16(type)
        request.l_whence = Int16(SEEK_SET)
        request.l_start = 0
        request.l_len = 0 // to the end of the file, however long
        while true {
            let result = fcntl(descriptor, F_SETLK, &request)
            if result == 0 || errno != EINTR { return result }
        }
    }
}
