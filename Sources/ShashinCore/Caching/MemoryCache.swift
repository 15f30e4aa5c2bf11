import Foundation

/// The default `ImageCaching`: a least-recently-used cache of decoded images bounded by bytes and
/// by count, with an optional time-to-live.
///
/// ```swift
/// configuration.memoryCache = MemoryCache(costLimit: 64 << 20)   // 64 MB of decoded pixels
/// ```
public final class MemoryCache: ImageCaching, @unchecked Sendable { // all state behind `lock`
    /// The most bytes of decoded images kept. Default: `MemoryCache.defaultCostLimit`.
    public var costLimit: Int {
        get { lock.withLock { $0.costLimit } }
        set { lock.withLock { $0.costLimit = newValue; $0.trim() } }
    }
    /// The most images kept. Default 10,000.
    public var countLimit: Int {
        get { lock.withLock { $0.countLimit } }
        set { lock.withLock { $0.countLimit = newValue; $0.trim() } }
    }
    /// An image costing more than this share of `costLimit` is not stored, so one huge image
    /// cannot flush everything else. Default 0.1.
    public var entryCostLimitRatio: Double {
        get { lock.withLock { $0.entryCostLimitRatio } }
        set { lock.withLock { $0.entryCostLimitRatio = newValue } }
    }
    /// How long an entry may be served after it was stored; `nil` (default): no expiry.
    public var timeToLive: TimeInterval? {
        get { lock.withLock { $0.timeToLive } }
        set { lock.withLock { $0.timeToLive = newValue }; hasTimeToLive.withLock { $0 = newValue != nil } }
    }

    private let lock: Locked<LRUStorage>
    private let hasTimeToLive: Locked<Bool>
    private let now: @Sendable () -> Date

    /// Creates a memory cache.
    /// - Parameters:
    ///   - costLimit: bytes of decoded pixels to keep; default a fifth of physical memory, at most 512 MB.
    ///   - countLimit: images to keep; default 10,000.
    ///   - timeToLive: seconds an entry stays valid; default `nil`, no expiry.
    ///   - clock: the current time, injectable for tests; default `Date()`.
    public init(costLimit: Int = MemoryCache.defaultCostLimit, countLimit: Int = 10_000,
                timeToLive: TimeInterval? = nil, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.lock = Locked(LRUStorage(costLimit: costLimit, countLimit: countLimit, timeToLive: timeToLive))
        self.hasTimeToLive = Locked(timeToLive != nil)
        self.now = clock
    }

    // The LRU list links its nodes both ways; unlinking them lets them go.
    deinit { lock.withLock { $0.removeAll() } }

    /// A fifth of physical memory, capped at 512 MB.
    public static var defaultCostLimit: Int {
        let physical = ProcessInfo.processInfo.physicalMemory
        return Int(min(physical / 5, 512 << 20))
    }

    /// The bytes currently held.
    public var totalCost: Int { lock.withLock { $0.totalCost } }
    /// The number of images currently held.
    public var totalCount: Int { lock.withLock { $0.entries.count } }

    public func image(forKey key: ImageCacheKey) -> PlatformImage? {
        // Reading the clock is a tenth of a hit's cost: only pay for it when entries can expire.
        let now = hasTimeToLive.current ? self.now() : .distantPast
        return lock.withLock { $0.value(forKey: key, now: now) }
    }

    public func store(_ image: PlatformImage, forKey key: ImageCacheKey) {
        store(image, forKey: key, cost: image.decodedByteCount)
    }

    /// Stores `image` with an explicit cost in bytes.
    public func store(_ image: PlatformImage, forKey key: ImageCacheKey, cost: Int) {
        let now = self.now()
        lock.withLock { $0.insert(image, forKey: key, cost: cost, now: now) }
    }

    public func removeImage(forKey key: ImageCacheKey) {
        lock.withLock { $0.remove(key) }
    }

    public func removeAll() {
        lock.withLock { $0.removeAll() }
    }

    /// Evicts least recently used images until at most `cost` bytes remain.
    public func trim(toCost cost: Int) {
        lock.withLock { $0.trim(toCost: cost, toCount: .max) }
    }

    /// Evicts least recently used images until at most `count` remain.
    public func trim(toCount count: Int) {
        lock.withLock { $0.trim(toCost: .max, toCount: count) }
    }

    /// Runs `body` on the storage under the lock, for tests.
    func withStorage<R>(_ body: (inout LRUStorage) -> R) -> R { lock.withLock(body) }

    /// The keys from most to least recently used, for tests and diagnostics.
    var keysInUseOrder: [ImageCacheKey] { lock.withLock { $0.keysInUseOrder } }
}
