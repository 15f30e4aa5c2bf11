import Foundation

/// Collects one download's body as it arrives (through `BodyObserver`) and hands over the bytes
/// up to each newly completed scan of a progressive JPEG and the two bytes of the marker after
/// it, with where that scan ends: at most one hand-over per chunk, however many scans it
/// completed. The bytes handed over share the feed's storage (no copy). Anything else (a
/// baseline JPEG, another format, damaged markers) stops it and frees what it held.
final class PreviewFeed: Sendable {
    private struct State {
        var data = Data()
        var tracker = JPEGScanTracker()
    }

    private let state = Locked<State?>(State())
    private let onScan: @Sendable (Data, Int) -> Void

    /// - Parameter onScan: called on the loader's thread with the bytes through the marker after
    ///   the last complete scan, and where that scan's data ends (two bytes before their end).
    init(onScan: @escaping @Sendable (Data, Int) -> Void) {
        self.onScan = onScan
    }

    func receive(_ chunk: Data) {
        let scan = state.withLock { state -> (Data, Int)? in
            guard state != nil else { return nil }
            state!.data.append(chunk)
            let completed = state!.tracker.advance(through: state!.data)
            guard state!.tracker.isTracking else { state = nil; return nil }
            let end = state!.tracker.completePrefixLength
            return completed ? (state!.data.prefix(end + 2), end) : nil
        }
        if let scan { onScan(scan.0, scan.1) }
    }

    /// Frees the bytes: the download is over.
    func close() { state.withLock { $0 = nil } }
}
