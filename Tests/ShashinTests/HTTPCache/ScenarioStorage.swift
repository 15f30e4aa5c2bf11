import Foundation
import Shashin

/// Storage for the scenarios: a fresh `DiskCache` folder each time would do as well; the
/// scenarios test the HTTP rules, so any `DataCaching` serves.
final class ScenarioStorage: DataCaching, @unchecked Sendable { // `entries` behind its lock
    private let entries = Locked<[String: DataCacheEntry]>([:])

    func entry(forKey key: String) throws -> DataCacheEntry? { entries.withLock { $0[key] } }
    func containsEntry(forKey key: String) -> Bool { entries.withLock { $0[key] != nil } }
    func store(_ data: Data, metadata: Data?, forKey key: String) throws {
        entries.withLock { $0[key] = DataCacheEntry(data: data, metadata: metadata) }
    }
    func updateMetadata(_ metadata: Data?, forKey key: String) throws { entries.withLock { $0[key]?.metadata = metadata } }
    func removeEntry(forKey key: String) throws { entries.withLock { _ = $0.removeValue(forKey: key) } }
    func removeAll() throws { entries.withLock { $0.removeAll() } }
}
