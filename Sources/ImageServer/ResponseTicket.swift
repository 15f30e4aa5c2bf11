import ShashinCore

/// One response's stay in flight: counts its body bytes once the connection took them and leaves
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

    /// Records the status line that went out.
    func answered(status: Int) {
        ledger.addResponse(status: status, path: path)
    }

    /// Leaves flight (once); `lastBytes` are counted with it in one step.
    func finish(lastBytes: Int = 0) {
        let wasOpen = isOpen.withLock { open in
            defer { open = false }
            return open
        }
        if wasOpen {
            ledger.end(addingBytes: lastBytes, path: path)
        } else {
            delivered(lastBytes)
        }
    }

    deinit {
        // A response never written (its connection closed first) still leaves flight.
        finish()
    }
}
