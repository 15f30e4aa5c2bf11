import Foundation

/// The process's open disk stores by folder, so every `DiskCache` on one folder shares one store
/// (one connection, one lock, one eviction queue) instead of racing a second one.
enum DiskStoreRegistry {
    private final class WeakStore {
        weak var store: DiskStore?
        init(_ store: DiskStore) { self.store = store }
    }

    /// Held while a store opens, so two callers on one folder cannot both open one.
    private static let stores = Locked<[String: WeakStore]>([:])

    /// The open store for `directory` (already resolved), or a new one from `open`.
    static func store(for directory: String, open: () throws(DiskCacheError) -> DiskStore) throws(DiskCacheError) -> DiskStore {
        let result = stores.withLock { stores -> Result<DiskStore, DiskCacheError> in
            if let store = stores[directory]?.store { return .success(store) }
            stores = stores.filter { $0.value.store != nil }
            do throws(DiskCacheError) {
                let store = try open()
                stores[directory] = WeakStore(store)
                return .success(store)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
