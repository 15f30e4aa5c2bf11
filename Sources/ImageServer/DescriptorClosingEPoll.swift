#if os(Linux)
import FlyingSocks
import Glibc

/// FlyingSocks' epoll queue, plus closing the eventfd that its `stop()` signals and then forgets:
/// with the stock queue (FlyingFox 0.27.1) every server run leaks one file descriptor, which a
/// test process starting hundreds of servers would feel.
struct DescriptorClosingEPoll: EventQueue {
    private var base = ePoll(maxEvents: 20)
    /// The wake-up eventfd `base` opened; `base.stop()` resets its own copy without closing it.
    private var wakeUp = Socket.FileDescriptor(rawValue: -1)

    mutating func open() throws {
        try base.open()
        // `canary` is internal to FlyingSocks; reflection reads it without patching the package.
        // Should a later version rename it, this finds nothing and the descriptor leaks as before.
        let canary = Mirror(reflecting: base).children.first { $0.label == "canary" }?.value
        wakeUp = canary as? Socket.FileDescriptor ?? Socket.FileDescriptor(rawValue: -1)
    }

    mutating func stop() throws {
        try base.stop()
    }

    /// The socket pool calls this once its event loop has ended, so no `epoll_wait` can still be
    /// waiting on the eventfd when it is closed.
    mutating func close() throws {
        defer {
            if wakeUp.rawValue >= 0 {
                _ = Glibc.close(wakeUp.rawValue)
                wakeUp = Socket.FileDescriptor(rawValue: -1)
            }
        }
        try base.close()
    }

    mutating func addEvents(_ events: Socket.Events, for socket: Socket.FileDescriptor) throws {
        try base.addEvents(events, for: socket)
    }

    mutating func removeEvents(_ events: Socket.Events, for socket: Socket.FileDescriptor) throws {
        try base.removeEvents(events, for: socket)
    }

    func getNotifications() throws -> [EventNotification] {
        try base.getNotifications()
    }
}
#endif
