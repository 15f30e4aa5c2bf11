import Foundation

/// The default `ImageCaching`: a least-recently-used cache of decoded images bounded by bytes and
/// by count, with an optional time-to-live.
///
/// ```swift
/// configuration.memoryCache = MemoryCache(costLimit: 64 << 20)   // 64 MB of decoded pixels
/// ```
///
/// It gives memory back on request (`trim(_:reason:)`, `trim(toCost:)`, `trim(toFraction:)`) and
/// reports every trim on `trims`. On iOS and tvOS it empties itself on a memory warning and keeps
/// `backgroundTrimFraction` of its bytes when the app goes to the background; on macOS it follows
/// the system's memory-pressure events. On Linux, a `MemoryPressureMonitor` trims it under PSI
/// memory pressure.
public final class MemoryCache: ImageCaching, MemoryTrimming, @unchecked Sendable { // all state behind `lock`
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

    /// The fraction of its bytes the cache keeps when an iOS or tvOS app goes to the background
    /// (the most recently used first); default 0.1. Unused elsewhere.
    public var backgroundTrimFraction: Double {
        get { lock.withLock { $0.backgroundTrimFraction } }
        set { lock.withLock { $0.backgroundTrimFraction = newValue } }
    }

    private let lock: Locked<LRUStorage>
    private let trimEvents = Broadcast<MemoryTrim>()
    /// The app-lifecycle and memory-pressure observation on Apple platforms; `nil` elsewhere.
    private let platformObservation = Locked<(any Sendable)?>(nil)
    private let hasTimeToLive: Locked<Bool>
    private let now: @Sendable () -> Date

    /// Creates a memory cache.
    /// - Parameters:
    ///   - costLimit: bytes of decoded pixels to keep; default `MemoryCache.defaultCostLimit`.
    ///   - countLimit: images to keep; default 10,000.
    ///   - timeToLive: seconds an entry stays valid; default `nil`, no expiry.
    ///   - clock: the current time, injectable for tests; default `Date()`.
    public init(costLimit: Int = MemoryCache.defaultCostLimit, countLimit: Int = 10_000,
                timeToLive: TimeInterval? = nil, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.lock = Locked(LRUStorage(costLimit: costLimit, countLimit: countLimit, timeToLive: timeToLive))
        self.hasTimeToLive = Locked(timeToLive != nil)
        self.now = clock
        let observation = PlatformMemoryObservation.start(for: self)
        platformObservation.withLock { $0 = observation }
    }

    // The LRU list links its nodes both ways; unlinking them lets them go.
    deinit {
        lock.withLock { $0.removeAll() }
        trimEvents.finish()
    }

    /// A fifth of the process's memory budget, capped at 512 MB. The budget is
    /// `ProcessMemoryBudget.current.bytes`: on Linux the cgroup's memory limit when one is set
    /// below physical memory (a 512 MB container gets about 102 MB), else physical memory.
    public static var defaultCostLimit: Int {
        defaultCostLimit(budget: ProcessMemoryBudget.current.bytes)
    }

    /// A fifth of `budget`, capped at 512 MB: the default cost limit for a process with `budget`
    /// bytes of memory.
    public static func defaultCostLimit(budget: UInt64) -> Int {
        Int(min(budget / 5, 512 << 20))
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

    /// Evicts least recently used images down to `level`, then reports the trim on `trims`.
    ///
    /// ```swift
    /// cache.trim(.fraction(0.25), reason: .requested)   // keep the most recent quarter of the bytes
    /// ```
    @discardableResult
    public func trim(_ level: MemoryTrimLevel, reason: MemoryTrimReason = .requested) -> MemoryTrim {
        let trim = lock.withLock { storage in
            let costBefore = storage.totalCost, countBefore = storage.entries.count
            switch level {
            case .all: storage.removeAll()
            case .fraction(let fraction):
                let kept = fraction.isNaN ? 0 : min(max(fraction, 0), 1)
                storage.trim(toCost: Int(Double(costBefore) * kept), toCount: .max)
            case .cost(let cost): storage.trim(toCost: cost, toCount: .max)
            case .count(let count): storage.trim(toCost: .max, toCount: count)
            }
            return MemoryTrim(level: level, reason: reason, costBefore: costBefore, costAfter: storage.totalCost,
                              countBefore: countBefore, countAfter: storage.entries.count)
        }
        trimEvents.yield(trim) // outside the lock: a consumer may read the cache at once
        return trim
    }

    /// Every trim from now on (requested, under pressure, on a memory warning, in the
    /// background), as it happens; each access is a new stream. Evictions that keep the cache
    /// within its limits as images are stored are not trims. A stream keeps the 16 newest trims
    /// its consumer has not read yet. The stream finishes when the cache is released.
    ///
    /// ```swift
    /// for await trim in cache.trims { log("freed \(trim.freedCost) bytes (\(trim.reason))") }
    /// ```
    public var trims: AsyncStream<MemoryTrim> { trimEvents.stream() }

    /// Runs `body` on the storage under the lock, for tests.
    func withStorage<R>(_ body: (inout LRUStorage) -> R) -> R { lock.withLock(body) }

    /// The keys from most to least recently used, for tests and diagnostics.
    var keysInUseOrder: [ImageCacheKey] { lock.withLock { $0.keysInUseOrder } }
}
