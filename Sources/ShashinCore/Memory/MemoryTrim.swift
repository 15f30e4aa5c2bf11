/// How much a memory trim keeps.
///
/// ```swift
/// pipeline.trimMemory(.all)             // empty the memory cache
/// pipeline.trimMemory(.fraction(0.5))   // keep the most recently used half of its bytes
/// ```
public enum MemoryTrimLevel: Sendable, Hashable {
    /// Keep nothing.
    case all
    /// Keep at most this fraction (0...1, clamped) of the bytes held when the trim starts, the
    /// most recently used first.
    case fraction(Double)
    /// Keep at most this many bytes.
    case cost(Int)
    /// Keep at most this many images.
    case count(Int)
}

/// Why a memory trim happened.
public enum MemoryTrimReason: String, Sendable, Hashable, CaseIterable {
    /// The app or server asked for it (`ImagePipeline.trimMemory`, `MemoryCache.trim`).
    case requested
    /// The system reported memory pressure: PSI on Linux, `DispatchSource` on macOS.
    case pressure
    /// A memory warning (`UIApplication.didReceiveMemoryWarningNotification`).
    case memoryWarning
    /// The app went to the background.
    case background
}

/// One memory trim: what was asked, why, and what it freed. Delivered by `MemoryCache.trims`
/// and returned by `MemoryCache.trim(_:reason:)`.
public struct MemoryTrim: Sendable, Hashable {
    /// How much the trim was to keep.
    public var level: MemoryTrimLevel
    /// Why it happened.
    public var reason: MemoryTrimReason
    /// Bytes held before and after.
    public var costBefore: Int, costAfter: Int
    /// Images held before and after.
    public var countBefore: Int, countAfter: Int

    /// Creates a trim record.
    public init(level: MemoryTrimLevel, reason: MemoryTrimReason,
                costBefore: Int, costAfter: Int, countBefore: Int, countAfter: Int) {
        self.level = level; self.reason = reason
        self.costBefore = costBefore; self.costAfter = costAfter
        self.countBefore = countBefore; self.countAfter = countAfter
    }

    /// Bytes the trim freed.
    public var freedCost: Int { costBefore - costAfter }
}

/// A cache that can give memory back partially. `MemoryCache` is one; a custom `ImageCaching`
/// conforms to be trimmed by `ImagePipeline.trimMemory(_:reason:)` rather than emptied.
public protocol MemoryTrimming: AnyObject, Sendable {
    /// Evicts least recently used entries down to `level`; returns what it freed.
    @discardableResult
    func trim(_ level: MemoryTrimLevel, reason: MemoryTrimReason) -> MemoryTrim
}

/// A loader that keeps memory between requests for reuse (the AsyncHTTPClient loader's idle
/// body buffers): `ImagePipeline.trimMemory(_:reason:)` asks it to give that memory back.
package protocol ReusableMemoryHolding: Sendable {
    /// Frees the memory kept for reuse; memory in use stays.
    func releaseReusableMemory()
}
