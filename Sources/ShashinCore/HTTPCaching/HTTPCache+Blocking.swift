import Foundation

extension HTTPCache {
    /// Storage calls block (file I/O, fsync, SQLite): they run on this queue, never on the Swift
    /// concurrency pool, whose few threads (two on a two-core machine) every async task shares.
    static let storageQueue = DispatchQueue(label: "shashin.http-cache.storage", qos: .userInitiated, attributes: .concurrent)

    /// Runs blocking `work` on `storageQueue` and resumes with its result.
    func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await ShashinCore.offThePool(on: Self.storageQueue, work)
    }

    /// `offThePool` for work that reports its failure as a value.
    func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await ShashinCore.offThePool(on: Self.storageQueue, work)
    }
}
