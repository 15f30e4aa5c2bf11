import NIOCore
import ShashinCore

/// The connections open now on a server's listeners, so ``ImageServer/stop()`` can close them
/// all and wait until each is closed. A connection leaves when it closes.
final class ConnectionRegistry: Sendable {
    private struct State: Sendable {
        var open: [ObjectIdentifier: any Channel] = [:]
        /// Set while the server stops: a connection accepted just before its listener closed,
        /// and set up only now, is closed at once.
        var refusing = false
    }

    private let state = Locked(State())

    /// Lets connections in again (a start after a stop).
    func accept() {
        state.withLock { $0.refusing = false }
    }

    func add(_ channel: any Channel) {
        let refused = state.withLock { state in
            if !state.refusing { state.open[ObjectIdentifier(channel)] = channel }
            return state.refusing
        }
        if refused {
            channel.close(promise: nil)
            return
        }
        channel.closeFuture.whenComplete { [state] _ in
            state.withLock { _ = $0.open.removeValue(forKey: ObjectIdentifier(channel)) }
        }
    }

    /// Refuses new connections, closes every open one and waits until all are closed.
    func closeAll() async {
        let open = state.withLock { state in
            state.refusing = true
            return Array(state.open.values)
        }
        for channel in open { channel.close(promise: nil) }
        for channel in open { try? await channel.closeFuture.get() }
    }
}
