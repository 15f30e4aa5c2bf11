#if os(Linux)
import Foundation
import Glibc

/// Memory pressure from Linux's pressure stall information (PSI): a trigger armed on
/// `/proc/pressure/memory`, or on the process's cgroup v2 `memory.pressure`, which the kernel
/// signals (`POLLPRI`) when tasks were stalled on memory for `stallMicroseconds` within a
/// `windowMicroseconds` window. The kernel signals at most once per window.
///
/// Arming needs write access to the file; unprivileged processes may be refused windows under
/// 2 s (the default window is 2 s for that reason). Needs Linux 5.2 or later with PSI enabled.
public struct PSIMemoryPressureSource: MemoryPressureSource {
    /// Which stall counts: `some` (at least one task stalled) or `full` (all non-idle tasks stalled).
    public enum Kind: String, Sendable { case some, full }

    /// The PSI file the trigger is armed on.
    public var path: String
    /// Which stall counts; default `.some`.
    public var kind: Kind
    /// Stall time within a window that signals pressure; default 150 ms.
    public var stallMicroseconds: Int
    /// The window; default 2 s (the kernel accepts 0.5 s to 10 s).
    public var windowMicroseconds: Int

    /// A source for the PSI file at `path` (default `defaultPath`).
    public init(path: String = PSIMemoryPressureSource.defaultPath, kind: Kind = .some,
                stallMicroseconds: Int = 150_000, windowMicroseconds: Int = 2_000_000) {
        self.path = path
        self.kind = kind
        self.stallMicroseconds = stallMicroseconds
        self.windowMicroseconds = windowMicroseconds
    }

    /// The process's own cgroup v2 `memory.pressure` when it has one (a container's), else the
    /// system's `/proc/pressure/memory`.
    public static var defaultPath: String {
        let root = URL(fileURLWithPath: "/sys/fs/cgroup")
        guard let text = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8),
              let location = CgroupLocation(cgroupRoot: root, procSelfCgroup: text),
              let file = location.pressureFile else { return "/proc/pressure/memory" }
        return file.path
    }

    /// The trigger line written to the file, as the kernel reads it.
    var triggerLine: String { "\(kind.rawValue) \(stallMicroseconds) \(windowMicroseconds)" }

    public func arm() throws -> any MemoryPressureTrigger {
        let fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw MemoryPressureUnavailable("cannot open \(path): \(Self.errorText())") }
        let written = triggerLine.withCString { write(fd, $0, strlen($0) + 1) } // the kernel expects the NUL
        guard written >= 0 else {
            let reason = "cannot arm a PSI trigger \"\(triggerLine)\" on \(path): \(Self.errorText())"
            Glibc.close(fd)
            throw MemoryPressureUnavailable(reason)
        }
        var ends: [Int32] = [-1, -1]
        // `pipe2` is a GNU extension Glibc's module does not export: set the flags one by one.
        guard Glibc.pipe(&ends) == 0 else {
            let reason = "cannot create the monitor's wake-up pipe: \(Self.errorText())"
            Glibc.close(fd)
            throw MemoryPressureUnavailable(reason)
        }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        return PSITrigger(pressureFD: fd, wakeRead: ends[0], wakeWrite: ends[1])
    }

    static func errorText() -> String { String(cString: strerror(errno)) }
}

/// An armed PSI trigger: `poll` on the PSI file for `POLLPRI` and on a pipe that `cancel()`
/// writes to.
final class PSITrigger: MemoryPressureTrigger {
    let pressureFD: Int32, wakeRead: Int32, wakeWrite: Int32
    /// Whether `close()` ran; `cancel()` checks it under the lock so it never writes to a
    /// descriptor number the process has since reused.
    private let closed = Locked(false)

    init(pressureFD: Int32, wakeRead: Int32, wakeWrite: Int32) {
        self.pressureFD = pressureFD; self.wakeRead = wakeRead; self.wakeWrite = wakeWrite
    }

    func wait() -> MemoryPressureWait {
        var fds = [pollfd(fd: pressureFD, events: Int16(POLLPRI), revents: 0),
                   pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        while true {
            fds[0].revents = 0; fds[1].revents = 0
            let ready = poll(&fds, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return .failed("poll failed: \(PSIMemoryPressureSource.errorText())")
            }
            if fds[1].revents != 0 { return .cancelled } // the pipe is never drained: later waits return at once
            if fds[0].revents & Int16(POLLERR | POLLNVAL) != 0 {
                return .failed("the PSI file reported an error (its cgroup may be gone)")
            }
            if fds[0].revents & Int16(POLLPRI) != 0 { return .pressure }
        }
    }

    func cancel() {
        closed.withLock { closed in
            guard !closed else { return }
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1) // a full pipe is already a pending wake-up
        }
    }

    func close() {
        closed.withLock { closed in
            guard !closed else { return }
            closed = true
            Glibc.close(pressureFD); Glibc.close(wakeRead); Glibc.close(wakeWrite)
        }
    }

    /// Whether `close()` ran, for tests.
    var isClosed: Bool { closed.current }
}
#endif
