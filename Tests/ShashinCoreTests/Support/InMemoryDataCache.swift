import Foundation
import ShashinCore

/// A `DataCaching` in a dictionary, with switches to make it fail like a full or broken disk.
final class InMemoryDataCache: DataCaching, @unchecked Sendable { // `state` behind its lock
    struct Failure: Error, Equatable { let operation: String }

    private struct State {
        var entries: [String: DataCacheEntry] = [:]
        var failsWrites = false
        var failsReads = false
    }

    private let state = Locked(State())

    var failsWrites: Bool {
        get { state.withLock { $0.failsWrites } }
        set { state.withLock { $0.failsWrites = newValue } }
    }

    var failsReads: Bool {
        get { state.withLock { $0.failsReads } }
        set { state.withLock { $0.failsReads = newValue } }
    }

    var keys: [String] { state.withLock { Array($0.entries.keys) } }

    func entry(forKey key: String) throws -> DataCacheEntry? {
        try state.withLock { state in
            if state.failsReads { throw Failure(operation: "read") }
            return state.entries[key]
        }
    }

    func containsEntry(forKey key: String) -> Bool { state.withLock { $0.entries[key] != nil } }

    func store(_ data: Data, metadata: Data?, forKey key: String) throws {
        try state.withLock { state in
            if state.failsWrites { throw Failure(operation: "write") }
            state.entries[key] = DataCacheEntry(data: data, metadata: metadata)
        }
    }

    func updateMetadata(_ metadata: Data?, forKey key: String) throws {
        try state.withLock { state in
            if state.failsWrites { throw Failure(operation: "write") }
            state.entries[key]?.metadata = metadata
        }
    }

    func removeEntry(forKey key: String) throws { state.withLock { _ = $0.entries.removeValue(forKey: key) } }
    func removeAll() throws { state.withLock { $0.entries.removeAll() } }
}
