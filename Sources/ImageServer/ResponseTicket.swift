import ShashinCore

/// One response's stay in flight: counts its body bytes once the socket took them and leaves
/// the in-flight count exactly once, when the body ends, fails, or is dropped unsent.
final class ResponseTicket: Sendable {
    private let ledger: TrafficLedger
    private let path: String
    private let isOpen = Locked(true)

    init(ledger: TrafficLedger, path: String) {
        self.ledger = ledger
        self.path = path
    }

    func delivered(_ count: Int) {
        ledger.addBytes(count, path: path)
    }

    func finish() {
        let wasOpen = isOpen.withLock { open in
            defer { open = false }
            return open
        }
        if wasOpen { ledger.end() }
    }

    deinit {
        // A response FlyingFox never iterated (the connection closed first) still leaves flight.
        finish()
    }
}
