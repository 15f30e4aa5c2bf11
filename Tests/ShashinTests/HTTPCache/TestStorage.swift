import Foundation
import Shashin

/// Storage for tests of the HTTP rules and the pipeline's use of them: any `DataCaching` serves,
/// and this one can be made to fail like a full disk.
final class TestStorage: DataCaching, @unchecked Sendable { // `state` behind its lock
    struct WriteFailed: Error {}

    private let state = Locked<(entries: [String: DataCacheEntry], failsWrites: Bool)>(([:], false))

    var failsWrites: Bool {
        get { state.withLock { $0.failsWrites } }
        set { state.withLock { $0.failsWrites = newValue } }
    }

    var keys: [String] { state.withLock { Array($0.entries.keys) } }

    func entry(forKey key: String) throws -> DataCacheEntry? { state.withLock { $0.entries[key] } }
    func containsEntry(forKey key: String) -> Bool { state.withLock { $0.entries[key] != nil } }

    func store(_ data: Data, metadata: Data?, forKey key: String) throws {
        try state.withLock { state in
            if state.failsWrites { throw WriteFailed() }
            state.entries[key] = DataCacheEntry(data: data, metadata: metadata)
        }
    }

    func updateMetadata(_ metadata: Data?, forKey key: String) throws {
        try state.withLock { state in
            if state.failsWrites { throw WriteFailed() }
            state.entries[key]?.metadata = metadata
        }
    }

    func removeEntry(forKey key: String) throws { state.withLock { _ = $0.entries.removeValue(forKey: key) } }
    func removeAll() throws { state.withLock { $0.entries.removeAll() } }
}
