import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The common disk-cache design, as the baseline for `shashin-bench disk`: one file per entry in
/// one folder, named by a hash of the key, no index. Size and eviction order come from listing
/// the folder and stat-ing every file; a read refreshes the file's modification time, which is
/// the eviction order (as Kingfisher does; Nuke sweeps by listing the same way).
struct FilePerEntryStore {
    let folder: String

    init(folder: String) throws {
        self.folder = folder
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    func path(for key: String) -> String {
        // FNV-1a, 64 bits twice with different offsets: a hash as cheap as it gets.
        var first: UInt64 = 0xcbf2_9ce4_8422_2325, second: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in key.utf8 {
            first = (first ^ UInt64(byte)) &* 0x100_0000_01b3
            second = (second ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return folder + "/" + String(first, radix: 16) + String(second, radix: 16)
    }

    func store(_ data: Data, forKey key: String) throws {
        try data.write(to: URL(fileURLWithPath: path(for: key)))
    }

    /// The bytes, with the file's modification time set to now (the use that orders eviction).
    func read(forKey key: String) -> Data? {
        let path = path(for: key)
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)) else { return nil }
        utimes(path, nil)
        return data
    }

    /// What starting up costs this design: listing the folder and stat-ing every file for the
    /// total size and the eviction order.
    func scan() -> (files: [(name: String, size: Int, modified: Double)], totalSize: Int) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        var files: [(name: String, size: Int, modified: Double)] = []
        files.reserveCapacity(names.count)
        var total = 0
        for name in names {
            var status = stat()
            guard stat(folder + "/" + name, &status) == 0 else { continue }
            let modified = Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9
            files.append((name, Int(status.st_size), modified))
            total += Int(status.st_size)
        }
        return (files, total)
    }

    /// The sweep: scan, sort by modification time, delete the oldest down to `target` bytes.
    @discardableResult
    func evict(downTo target: Int) -> Int {
        var (files, total) = scan()
        files.sort { $0.modified < $1.modified }
        var removed = 0
        for file in files where total > target {
            unlink(folder + "/" + file.name)
            total -= file.size
            removed += 1
        }
        return removed
    }
}
