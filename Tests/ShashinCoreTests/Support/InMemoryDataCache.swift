import Foundation
import ShashinCore

/// A `DataCaching` in a dictionary, with switches to make it fail like a full or broken disk.
final class InMemoryDataCache: DataCaching, @unchecked Sendable { // `state` behind its lock
    struct Failure: Error, Equatable { let operation: String }

    private struct State {
        var entries: [String: DataCacheEntry] = [:]
        var failsWrites = false
        var failsReads = false
        var entryReads = 0
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

    /// How many times `entry(forKey:)` was called: tests check what reads the bytes.
    var entryReads: Int { state.withLock { $0.entryReads } }

    var keys: [String] { state.withLock { Array($0.entries.keys) } }

    func entry(forKey key: String) throws -> DataCacheEntry? {
        try state.withLock { state in
            state.entryReads += 1
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

    func updateMetadata(_ metadata: Data?, forKey key: String, ifCurrent expected: Data?) throws -> Bool {
        try state.withLock { state in
            if state.failsWrites { throw Failure(operation: "write") }
            guard let current = state.entries[key], current.metadata == expected else { return false }
            state.entries[key]?.metadata = metadata
            return true
        }
    }

    func removeEntry(forKey key: String) throws { state.withLock { _ = $0.entries.removeValue(forKey: key) } }
    func removeAll() throws { state.withLock { $0.entries.removeAll() } }
}
