import Foundation
@testable import ShashinCore
#if canImport(Glibc)
import Glibc
#endif

/// A fresh folder for one test's cache, removed when the test ends.
final class TemporaryFolder {
    let url: URL
    var path: String { url.path }

    init() {
        url = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
            .appendingPathComponent("shashin-disk-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The names in the cache's `data/` folder.
    func dataFiles(_ cacheFolder: URL? = nil) -> [String] {
        let folder = (cacheFolder ?? url).appendingPathComponent("data").path
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }
}

/// Bytes that say which key and version they belong to, so a read can be checked exactly.
func payload(_ key: String, size: Int, version: Int = 0) -> Data {
    // Eight bytes per step: these tests share the cooperative pool with the pipeline's, and
    // byte-at-a-time generation was slow enough under ThreadSanitizer to starve them.
    var generator = SplitMix(seed: UInt64(truncatingIfNeeded: key.hashValueStable &+ version))
    var words = [UInt64](repeating: 0, count: (size + 7) / 8)
    for index in words.indices { words[index] = generator.next() }
    return words.withUnsafeBytes { Data($0.prefix(size)) }
}

/// A small deterministic generator (the standard library's is not seedable).
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

extension String {
    /// FNV-1a of the UTF-8 bytes: stable across runs, unlike `hashValue`.
    var hashValueStable: Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(truncatingIfNeeded: hash)
    }
}

/// Limits for tests: small, and every entry of `inlineThreshold` bytes or more in a file.
func testLimits(sizeLimit: Int = 1 << 30, countLimit: Int = .max, inlineThreshold: Int = 1024) -> DiskStore.Limits {
    DiskStore.Limits(sizeLimit: sizeLimit, countLimit: countLimit, trimRatio: 0.7,
                     inlineThreshold: inlineThreshold, syncsFiles: false)
}

/// The real file system, made to fail like a full disk or a read-only folder on demand.
final class FaultyFileSystem: DiskFileSystem, Sendable {
    private let real = PosixFileSystem()
    private let failure = Locked<Int32?>(nil)

    /// From now on, creating, writing and renaming files fail with `code` (nil: they work again).
    func fail(with code: Int32?) { failure.withLock { $0 = code } }
    private var current: Int32? { failure.current }

    func makeDirectory(_ path: String, mode: mode_t) throws(DiskCacheError) { try real.makeDirectory(path, mode: mode) }

    func writeNewFile(_ path: String, data: Data, sync: Bool) throws(DiskCacheError) {
        guard let code = current else { return try real.writeNewFile(path, data: data, sync: sync) }
        if code == ENOSPC {
            // A full disk fails part-way: half the bytes land before the error.
            try? real.writeNewFile(path, data: data.prefix(data.count / 2), sync: false)
            real.removeFile(path)
        }
        throw .posix("write", path, errno: code)
    }

    func rename(_ source: String, to destination: String) throws(DiskCacheError) {
        if let code = current { throw .posix("rename", destination, errno: code) }
        try real.rename(source, to: destination)
    }

    func readFile(_ path: String, expectedSize: Int) throws(DiskCacheError) -> Data? {
        try real.readFile(path, expectedSize: expectedSize)
    }

    func removeFile(_ path: String) { real.removeFile(path) }

    func contentsOfDirectory(_ path: String) throws(DiskCacheError) -> [String] {
        try real.contentsOfDirectory(path)
    }
}

/// Runs a system command; `true` when it exits 0.
@discardableResult
func run(_ executable: String, _ arguments: [String]) -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
}

/// Real file-system conditions a test can create on this machine, if any.
enum FileSystemConditions {
    static var isRoot: Bool { getuid() == 0 }

    /// Mounts a tmpfs of `kilobytes` at a new folder (needs root and the right to mount).
    static func mountTmpfs(kilobytes: Int) -> URL? {
        guard isRoot, FileManager.default.isExecutableFile(atPath: "/bin/mount") else { return nil }
        let folder = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
            .appendingPathComponent("shashin-tmpfs-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        guard run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(kilobytes)k,mode=0700", "tmpfs", folder.path]) else {
            try? FileManager.default.removeItem(at: folder)
            return nil
        }
        return folder
    }

    /// Makes `folder` read-only for new files in a way that holds even for root: a read-only
    /// bind mount of the folder onto itself (files already open stay writable, as with chmod).
    static func makeReadOnlyForRoot(_ folder: URL) -> Bool {
        guard isRoot, run("/bin/mount", ["--bind", folder.path, folder.path]) else { return false }
        guard run("/bin/mount", ["-o", "remount,bind,ro", folder.path]) else {
            run("/bin/umount", ["-l", folder.path])
            return false
        }
        return true
    }

    static func unmount(_ folder: URL) {
        run("/bin/umount", ["-l", folder.path])
    }
}
