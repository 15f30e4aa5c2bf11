import Foundation

/// The memory this process may use: its cgroup's memory limit when one is set below physical
/// memory (a container's limit), else physical memory. `MemoryCache.defaultCostLimit` is a fifth
/// of it, at most 512 MB.
///
/// The cgroup is the one `/proc/self/cgroup` names: with cgroup v1 (a `N:memory:/path` line) the
/// limit is `memory.limit_in_bytes` under `<root>/memory/path`, where a huge value means none;
/// with cgroup v2 (a `0::/path` line) it is `memory.max` under `<root>/path` (or
/// `<root>/unified/path` on a hybrid system), where `max` means none. A limit set on a parent
/// group binds too, so the tightest of the group and its ancestors counts.
///
/// ```swift
/// let budget = ProcessMemoryBudget.current
/// print(budget.cgroupLimit.map { "container limit \($0)" } ?? "no container limit", budget.bytes)
/// ```
public struct ProcessMemoryBudget: Sendable, Hashable {
    /// The machine's physical memory in bytes.
    public var physicalMemory: UInt64
    /// The cgroup's memory limit in bytes, when one is set below physical memory; else `nil`.
    public var cgroupLimit: UInt64?

    /// The bytes the process may use: `cgroupLimit`, else `physicalMemory`.
    public var bytes: UInt64 { min(cgroupLimit ?? physicalMemory, physicalMemory) }

    /// Creates a budget from known figures.
    public init(physicalMemory: UInt64, cgroupLimit: UInt64?) {
        self.physicalMemory = physicalMemory
        self.cgroupLimit = cgroupLimit.flatMap { $0 < physicalMemory ? $0 : nil }
    }

    /// This process's budget, read once: on Linux from `/proc/self/cgroup` and `/sys/fs/cgroup`;
    /// elsewhere physical memory.
    public static let current: ProcessMemoryBudget = {
        #if os(Linux)
        return read()
        #else
        return ProcessMemoryBudget(physicalMemory: ProcessInfo.processInfo.physicalMemory, cgroupLimit: nil)
        #endif
    }()

    /// Reads the budget from a cgroup file system.
    /// - Parameters:
    ///   - cgroupRoot: where the cgroup file systems are mounted; default `/sys/fs/cgroup`.
    ///   - procSelfCgroup: the file naming the process's groups; default `/proc/self/cgroup`.
    ///   - physicalMemory: default `ProcessInfo.processInfo.physicalMemory`.
    /// Missing or unreadable files mean no limit.
    public static func read(cgroupRoot: URL = URL(fileURLWithPath: "/sys/fs/cgroup"),
                            procSelfCgroup: URL = URL(fileURLWithPath: "/proc/self/cgroup"),
                            physicalMemory: UInt64 = ProcessInfo.processInfo.physicalMemory) -> ProcessMemoryBudget {
        let limit = (try? String(contentsOf: procSelfCgroup, encoding: .utf8))
            .flatMap { CgroupLocation(cgroupRoot: cgroupRoot, procSelfCgroup: $0) }
            .flatMap { $0.tightestLimit() }
        return ProcessMemoryBudget(physicalMemory: physicalMemory, cgroupLimit: limit)
    }
}

/// Where a process's memory controller sits in a cgroup file system.
struct CgroupLocation: Equatable {
    enum Version: Equatable { case v1, v2 }
    var version: Version
    /// The mount of the hierarchy holding the memory controller.
    var hierarchyRoot: URL
    /// The path of the process's group inside that hierarchy, as `/proc/self/cgroup` gives it.
    var groupPath: String

    /// The location from the text of `/proc/self/cgroup`: the v1 `memory` hierarchy when there
    /// is one (a hybrid system keeps the memory controller there), else the v2 one.
    init?(cgroupRoot: URL, procSelfCgroup text: String) {
        var v1Path: String?, v2Path: String?
        for line in text.split(whereSeparator: \.isNewline) {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            if fields[0] == "0" && fields[1].isEmpty {
                v2Path = String(fields[2])
            } else if fields[1].split(separator: ",").contains("memory") {
                v1Path = String(fields[2])
            }
        }
        let files = FileManager.default
        if let v1Path {
            version = .v1
            hierarchyRoot = cgroupRoot.appendingPathComponent("memory", isDirectory: true)
            groupPath = v1Path
        } else if let v2Path {
            version = .v2
            let unified = cgroupRoot.appendingPathComponent("unified", isDirectory: true)
            let rootIsUnified = files.fileExists(atPath: cgroupRoot.appendingPathComponent("cgroup.controllers").path)
            hierarchyRoot = !rootIsUnified && files.fileExists(atPath: unified.path) ? unified : cgroupRoot
            groupPath = v2Path
        } else {
            return nil
        }
    }

    /// The group's folder and its ancestors' up to the hierarchy's root, the group first. In a
    /// container whose cgroup namespace hides the host's path, the path named does not exist
    /// under the mount; the mount's root is then the container's group, and is still listed.
    var groupAndAncestors: [URL] {
        var folders: [URL] = []
        var components = groupPath.split(separator: "/").map(String.init)
        while !components.isEmpty {
            let folder = components.reduce(hierarchyRoot) { $0.appendingPathComponent($1, isDirectory: true) }
            if FileManager.default.fileExists(atPath: folder.path) { folders.append(folder) }
            components.removeLast()
        }
        folders.append(hierarchyRoot)
        return folders
    }

    /// The tightest memory limit on the group and its ancestors; `nil` when none is set.
    func tightestLimit() -> UInt64? {
        let file = version == .v1 ? "memory.limit_in_bytes" : "memory.max"
        return groupAndAncestors.compactMap { folder -> UInt64? in
            guard let text = try? String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8) else { return nil }
            return UInt64(text.trimmingCharacters(in: .whitespacesAndNewlines)) // "max": not a number, no limit
        }.min()
    }

    /// The group's own `memory.pressure` (cgroup v2 only), when it exists and is not the root's
    /// (the root's is the system's, as `/proc/pressure/memory`).
    var pressureFile: URL? {
        guard version == .v2, let group = groupAndAncestors.first, group != hierarchyRoot else { return nil }
        let file = group.appendingPathComponent("memory.pressure")
        return FileManager.default.fileExists(atPath: file.path) ? file : nil
    }
}
