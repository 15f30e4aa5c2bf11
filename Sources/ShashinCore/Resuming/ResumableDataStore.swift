import Foundation

/// Where a pipeline keeps the first bytes of downloads that ended early, so that the next load
/// of the same URL asks only for the rest: in memory, least recently used first out, within a
/// limit on the bytes held. A pipeline with a disk cache also keeps them there (apart from full
/// responses), so a resume survives a relaunch.
///
/// ```swift
/// var configuration = ImagePipeline.Configuration()
/// configuration.resumableData = ResumableDataStore(byteLimit: 16 << 20)  // nil: never resume
/// ```
public final class ResumableDataStore: Sendable {
    private struct Entry {
        var value: ResumableData
        var lastUse: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var totalBytes = 0
        var clock: UInt64 = 0
    }

    /// The most bytes held at once; the least recently used entries go first to stay within it,
    /// and a partial body larger than it is not kept.
    public let byteLimit: Int
    private let state = Locked(State())

    /// - Parameter byteLimit: the most bytes held at once; default 32 MB.
    public init(byteLimit: Int = 32 << 20) {
        self.byteLimit = max(0, byteLimit)
    }

    /// The kept bytes for `url`, or `nil`. Counts as a use.
    public func resumableData(for url: URL) -> ResumableData? {
        guard let key = Self.key(for: url) else { return nil }
        return value(forKey: key)
    }

    /// Bytes held now, over every URL.
    public var totalBytes: Int { state.withLock { $0.totalBytes } }

    /// How many URLs have bytes kept.
    public var count: Int { state.withLock { $0.entries.count } }

    /// Forgets every kept body.
    public func removeAll() {
        state.withLock { $0 = State() }
    }

    func value(forKey key: String) -> ResumableData? {
        state.withLock { state in
            guard var entry = state.entries[key] else { return nil }
            state.clock += 1
            entry.lastUse = state.clock
            state.entries[key] = entry
            return entry.value
        }
    }

    func store(_ value: ResumableData, forKey key: String) {
        state.withLock { state in
            Self.remove(key, from: &state)
            guard value.data.count <= byteLimit else { return }
            state.clock += 1
            state.entries[key] = Entry(value: value, lastUse: state.clock)
            state.totalBytes += value.data.count
            // Few entries (each a large body's head): a scan for the oldest is cheap.
            while state.totalBytes > byteLimit, let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
                Self.remove(oldest, from: &state)
            }
        }
    }

    func removeValue(forKey key: String) {
        state.withLock { Self.remove(key, from: &$0) }
    }

    private static func remove(_ key: String, from state: inout State) {
        if let old = state.entries.removeValue(forKey: key) { state.totalBytes -= old.value.data.count }
    }

    /// The key of a URL: the HTTP cache's (the URL without its fragment); `nil` for other schemes.
    static func key(for url: URL) -> String? { HTTPCache.storageKey(for: url) }
}
