import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The few file operations the disk cache makes, behind a protocol so tests can inject the
/// failures a real disk produces (a full disk, a read-only folder) where they cannot make one.
protocol DiskFileSystem: Sendable {
    /// Creates the folder with `mode` (owner-only for the cache); an existing folder is fine.
    func makeDirectory(_ path: String, mode: mode_t) throws(DiskCacheError)
    /// Writes `data` to a new file at `path` (owner-only), flushing it to the disk first when
    /// `sync` is set; the file is gone again when this throws.
    func writeNewFile(_ path: String, data: Data, sync: Bool) throws(DiskCacheError)
    func rename(_ source: String, to destination: String) throws(DiskCacheError)
    /// The file's bytes, or `nil` when it is missing or its size is not `expectedSize`.
    func readFile(_ path: String, expectedSize: Int) throws(DiskCacheError) -> Data?
    /// Removes the file; a missing file is not an error.
    func removeFile(_ path: String)
    /// The names in the folder, without `.` and `..`.
    func contentsOfDirectory(_ path: String) throws(DiskCacheError) -> [String]
}

/// The real file system, through POSIX calls (no Foundation file APIs: they give no errno and
/// cannot set permissions at creation).
struct PosixFileSystem: DiskFileSystem {
    func makeDirectory(_ path: String, mode: mode_t) throws(DiskCacheError) {
        if mkdir(path, mode) != 0 && errno != EEXIST { throw .posix("mkdir", path) }
        // An existing one must be a folder itself, not a symlink planted to lead writes elsewhere.
        var status = stat()
        guard lstat(path, &status) == 0 else { throw .posix("lstat", path) }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw .cannotOpen(path: path, reason: "not a folder (a symbolic link or a file is in its place)")
        }
    }

    func writeNewFile(_ path: String, data: Data, sync: Bool) throws(DiskCacheError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .posix("create", path) }
        var failure: DiskCacheError?
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = .posix("write", path)
                    return
                }
                offset += written
            }
        }
        if failure == nil && sync && Self.flushToDisk(descriptor) != 0 { failure = .posix("fsync", path) }
        // close can report a deferred write error (NFS, some full disks).
        if close(descriptor) != 0 && failure == nil { failure = .posix("close", path) }
        if let failure {
            unlink(path)
            throw failure
        }
    }

    func rename(_ source: String, to destination: String) throws(DiskCacheError) {
        if systemRename(source, destination) != 0 { throw .posix("rename", destination) }
    }

    func readFile(_ path: String, expectedSize: Int) throws(DiskCacheError) -> Data? {
        // Never through a symbolic link: an entry is a plain file the cache wrote, or a miss.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            if errno == ENOENT || errno == ELOOP { return nil }
            throw .posix("open", path)
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .posix("stat", path) }
        guard status.st_mode & S_IFMT == S_IFREG, Int(status.st_size) == expectedSize else { return nil }
        guard expectedSize > 0 else { return Data() }

        // Uninitialised memory handed to Data without a copy: `Data(count:)` would zero it first.
        guard let buffer = malloc(expectedSize) else { throw .io(operation: "read", path: path, errno: ENOMEM, message: "out of memory") }
        var offset = 0
        while offset < expectedSize {
            let count = read(descriptor, buffer + offset, expectedSize - offset)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                let code = count < 0 ? errno : 0
                free(buffer)
                if code == 0 { return nil } // shorter than its size said: shrinking under us
                throw .posix("read", path, errno: code)
            }
            offset += count
        }
        return Data(bytesNoCopy: buffer, count: expectedSize, deallocator: .free)
    }

    func removeFile(_ path: String) {
        unlink(path)
    }

    func contentsOfDirectory(_ path: String) throws(DiskCacheError) -> [String] {
        guard let directory = opendir(path) else { throw .posix("opendir", path) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Data (not necessarily metadata) to stable storage: `fdatasync` where it exists.
    private static func flushToDisk(_ descriptor: Int32) -> Int32 {
        #if canImport(Darwin)
        return fsync(descriptor)
        #else
        return fdatasync(descriptor)
        #endif
    }
}

/// `rename(2)`, named apart from Foundation's overloads.
func systemRename(_ source: String, _ destination: String) -> Int32 {
    #if canImport(Darwin)
    return Darwin.rename(source, destination)
    #elseif canImport(Glibc)
    return Glibc.rename(source, destination)
    #else
    return Musl.rename(source, destination)
    #endif
}
