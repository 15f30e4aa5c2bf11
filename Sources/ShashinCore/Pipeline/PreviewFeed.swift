import Foundation

/// Collects one download's body as it arrives (through `BodyObserver`) and hands over the bytes
/// up to each newly completed scan of a progressive JPEG: at most one hand-over per chunk, however
/// many scans it completed. Anything else (a baseline JPEG, another format, damaged markers)
/// stops it and frees what it held.
final class PreviewFeed: Sendable {
    private struct State {
        var data = Data()
        var tracker = JPEGScanTracker()
    }

    private let state = Locked<State?>(State())
    private let onScan: @Sendable (Data) -> Void

    /// - Parameter onScan: called on the loader's thread with the prefix ending after the last
    ///   complete scan.
    init(onScan: @escaping @Sendable (Data) -> Void) {
        self.onScan = onScan
    }

    func receive(_ chunk: Data) {
        let prefix = state.withLock { state -> Data? in
            guard state != nil else { return nil }
            state!.data.append(chunk)
            let completed = state!.tracker.advance(through: state!.data)
            guard state!.tracker.isTracking else { state = nil; return nil }
            return completed ? Data(state!.data.prefix(state!.tracker.completePrefixLength)) : nil
        }
        if let prefix { onScan(prefix) }
    }

    /// Frees the bytes: the download is over.
    func close() { state.withLock { $0 = nil } }
}
