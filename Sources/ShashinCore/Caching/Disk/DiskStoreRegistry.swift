import Foundation

/// The process's open disk stores by folder, and how many `DiskCache` instances hold each, so
/// every instance on one folder shares one store (one connection, one lock, one eviction queue).
///
/// A store is closed when the last instance holding it is released, before that release returns:
/// its folder lock is then free, so the next opener (in this process or another) that finds itself
/// alone reconciles. Background work still holding the store object afterwards finds it closed.
enum DiskStoreRegistry {
    private struct Opened {
        let store: DiskStore
        var holders: Int
    }

    /// Held while a store opens or closes, so an open of a folder never overlaps its close.
    private static let stores = Locked<[String: Opened]>([:])

    /// The open store for `directory` (already resolved), or a new one from `open`, counted as
    /// held once more. Each successful call is balanced by one `release(directory)`.
    static func acquire(_ directory: String, open: () throws(DiskCacheError) -> DiskStore) throws(DiskCacheError) -> DiskStore {
        let result = stores.withLock { stores -> Result<DiskStore, DiskCacheError> in
            if var opened = stores[directory] {
                opened.holders += 1
                stores[directory] = opened
                return .success(opened.store)
            }
            do throws(DiskCacheError) {
                let store = try open()
                stores[directory] = Opened(store: store, holders: 1)
                return .success(store)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Counts one holder of `directory`'s store less; the last one closes it.
    static func release(_ directory: String) {
        stores.withLock { stores in
            guard var opened = stores[directory] else { return }
            opened.holders -= 1
            if opened.holders > 0 {
                stores[directory] = opened
            } else {
                stores[directory] = nil
                opened.store.shutDown()
            }
        }
    }
}
