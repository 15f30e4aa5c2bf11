import Foundation
import Testing
@testable import ShashinCore

/// Fixture folders laid out as `/sys/fs/cgroup` is, made in a temporary folder for each test.
@Suite("Process memory budget")
struct ProcessMemoryBudgetTests {
    static let physical: UInt64 = 8 << 30
    static let hugeV1 = "9223372036854771712\n" // what v1 reports for "no limit"

    /// A temporary folder holding `files` (path → contents) and a `proc-self-cgroup` file.
    final class Fixture {
        let root: URL
        let procSelfCgroup: URL
        init(procSelfCgroup text: String, files: [String: String]) throws {
            let base = FileManager.default.temporaryDirectory
                .appendingPathComponent("shashin-cgroup-\(UUID().uuidString)", isDirectory: true)
            root = base.appendingPathComponent("sys-fs-cgroup", isDirectory: true)
            procSelfCgroup = base.appendingPathComponent("proc-self-cgroup")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: procSelfCgroup)
            for (path, contents) in files {
                let file = root.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(contents.utf8).write(to: file)
            }
        }
        deinit { try? FileManager.default.removeItem(at: root.deletingLastPathComponent()) }

        func budget(physical: UInt64 = ProcessMemoryBudgetTests.physical) -> ProcessMemoryBudget {
            ProcessMemoryBudget.read(cgroupRoot: root, procSelfCgroup: procSelfCgroup, physicalMemory: physical)
        }
    }

    // cgroup v2

    @Test func v2MemoryMaxIsTheBudget() throws {
        let fixture = try Fixture(procSelfCgroup: "0::/app.slice/web.service\n", files: [
            "cgroup.controllers": "cpu io memory pids\n",
            "app.slice/web.service/memory.max": "536870912\n",
        ])
        #expect(fixture.budget() == ProcessMemoryBudget(physicalMemory: Self.physical, cgroupLimit: 512 << 20))
        #expect(fixture.budget().bytes == 512 << 20)
        #expect(MemoryCache.defaultCostLimit(budget: fixture.budget().bytes) == 107_374_182)
    }

    @Test func v2MaxMeansNoLimit() throws {
        let fixture = try Fixture(procSelfCgroup: "0::/app.slice/web.service\n", files: [
            "cgroup.controllers": "memory\n",
            "app.slice/web.service/memory.max": "max\n",
        ])
        #expect(fixture.budget().cgroupLimit == nil)
        #expect(fixture.budget().bytes == Self.physical)
    }

    @Test func v2ALimitOnAParentGroupBinds() throws {
        let fixture = try Fixture(procSelfCgroup: "0::/app.slice/web.service\n", files: [
            "cgroup.controllers": "memory\n",
            "app.slice/memory.max": "268435456\n",
            "app.slice/web.service/memory.max": "max\n",
        ])
        #expect(fixture.budget().cgroupLimit == 256 << 20)
    }

    @Test func v2OnAHybridSystemIsReadUnderUnified() throws {
        let fixture = try Fixture(procSelfCgroup: "1:name=systemd:/user.slice\n0::/user.slice\n", files: [
            "unified/cgroup.controllers": "\n",
            "unified/user.slice/memory.max": "1073741824\n",
        ])
        #expect(fixture.budget().cgroupLimit == 1 << 30)
    }

    @Test func v2InANamespacedContainerReadsTheMountsRoot() throws {
        // The process's path is the host's; the container sees its own group at the mount's root.
        let fixture = try Fixture(procSelfCgroup: "0::/kubepods/burstable/pod42/abc\n", files: [
            "cgroup.controllers": "memory\n",
            "memory.max": "805306368\n",
        ])
        #expect(fixture.budget().cgroupLimit == 768 << 20)
    }

    @Test func aLimitAbovePhysicalMemoryIsIgnored() throws {
        let fixture = try Fixture(procSelfCgroup: "0::/big\n", files: [
            "cgroup.controllers": "memory\n",
            "big/memory.max": "\(16 << 30)\n",
        ])
        #expect(fixture.budget().cgroupLimit == nil)
        #expect(fixture.budget().bytes == Self.physical)
    }

    @Test func v2GroupPressureFileIsFoundButNotTheRoots() throws {
        let fixture = try Fixture(procSelfCgroup: "0::/app.slice\n", files: [
            "cgroup.controllers": "memory\n",
            "memory.pressure": "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
            "app.slice/memory.pressure": "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
        ])
        let text = try String(contentsOf: fixture.procSelfCgroup, encoding: .utf8)
        let location = try #require(CgroupLocation(cgroupRoot: fixture.root, procSelfCgroup: text))
        #expect(location.pressureFile?.lastPathComponent == "memory.pressure")
        #expect(location.pressureFile?.deletingLastPathComponent().lastPathComponent == "app.slice")
        let atRoot = try #require(CgroupLocation(cgroupRoot: fixture.root, procSelfCgroup: "0::/\n"))
        #expect(atRoot.pressureFile == nil)
    }

    // cgroup v1

    @Test func v1LimitInBytesIsTheBudget() throws {
        let fixture = try Fixture(procSelfCgroup: "5:cpu,cpuacct:/docker/abc\n4:memory:/docker/abc\n0::/\n", files: [
            "memory/memory.limit_in_bytes": Self.hugeV1,
            "memory/docker/abc/memory.limit_in_bytes": "536870912\n",
            "unified/cgroup.controllers": "\n",
            "unified/memory.max": "max\n",
        ])
        #expect(fixture.budget().cgroupLimit == 512 << 20)
    }

    @Test func v1HugeValuesMeanNoLimit() throws {
        let fixture = try Fixture(procSelfCgroup: "4:memory:/process_api/c3bf\n0::/\n", files: [
            "memory/memory.limit_in_bytes": Self.hugeV1,
            "memory/process_api/memory.limit_in_bytes": Self.hugeV1,
            "memory/process_api/c3bf/memory.limit_in_bytes": Self.hugeV1,
        ])
        #expect(fixture.budget().cgroupLimit == nil)
        #expect(fixture.budget().bytes == Self.physical)
    }

    @Test func v1MemorySharingAHierarchyWithOtherControllersIsFound() throws {
        let fixture = try Fixture(procSelfCgroup: "3:cpu,memory:/jobs/7\n", files: [
            "memory/jobs/7/memory.limit_in_bytes": "104857600\n",
        ])
        #expect(fixture.budget().cgroupLimit == 100 << 20)
    }

    // Missing pieces

    @Test func missingFilesMeanPhysicalMemory() throws {
        let noLimitFiles = try Fixture(procSelfCgroup: "0::/app.slice\n", files: ["cgroup.controllers": "memory\n"])
        #expect(noLimitFiles.budget() == ProcessMemoryBudget(physicalMemory: Self.physical, cgroupLimit: nil))
        let noMemoryLine = try Fixture(procSelfCgroup: "1:name=systemd:/\n", files: [:])
        #expect(noMemoryLine.budget().bytes == Self.physical)
        let garbage = try Fixture(procSelfCgroup: "not a cgroup file", files: [:])
        #expect(garbage.budget().bytes == Self.physical)
        let noProcFile = ProcessMemoryBudget.read(cgroupRoot: noLimitFiles.root,
                                                  procSelfCgroup: noLimitFiles.root.appendingPathComponent("absent"),
                                                  physicalMemory: Self.physical)
        #expect(noProcFile.bytes == Self.physical)
    }

    @Test func thisProcessBudgetIsReadFromTheRealFiles() {
        // This machine's group (v1 memory, unlimited) gives physical memory; a container with
        // a limit gives that limit. Either way the budget never exceeds physical memory.
        let budget = ProcessMemoryBudget.current
        #expect(budget.physicalMemory == ProcessInfo.processInfo.physicalMemory)
        #expect(budget.bytes <= budget.physicalMemory && budget.bytes > 0)
        #if os(Linux)
        #expect(budget == ProcessMemoryBudget.read())
        #endif
    }
}
