import Foundation
import ShashinCore

/// Memory for response bodies that goes back to a bounded pool when the body's `Data` is
/// released, instead of back to malloc.
///
/// A body is joined on one thread and freed later on another, once its caller is done with it.
/// glibc returns a freed body to the arena that made it, and when the free space at the top of
/// that arena passes its trim threshold (128 KB unless the process changed it) it hands the pages
/// back to the kernel (`madvise`), so the next body faults them in again: 20–40 µs of CPU per
/// ~50 KB request through the pipeline (BENCHMARKS.md, the network section). A body drawn from
/// this pool keeps its pages: released, its storage waits here for the next body of its size.
///
/// Storage comes in size classes of ``classSize`` bytes; a body takes storage of its own class.
/// At most ``maxHeldBytes`` wait in the pool; storage past that, and bodies outside
/// ``pooledSizes``, go back to malloc as any `Data` does. The pool never holds storage a `Data`
/// still uses: only a released `Data`'s deallocator puts it back.
package final class BodyStoragePool: Sendable {
    /// The pool every loader's bodies come from.
    static let shared = BodyStoragePool()

    /// The step between size classes.
    static let classSize = 16_384
    /// The body sizes drawn from the pool; smaller bodies are cheap to allocate, larger ones rare.
    static let pooledSizes = 16_384...1_048_576

    /// The most bytes of storage waiting in the pool.
    let maxHeldBytes: Int

    /// Whether bodies are drawn from the pool; `false` gives plain `Data`, for measuring the pool
    /// against malloc in one binary (`shashin-bench network --unpooled`).
    package static let isEnabled = Locked(true)

    private struct State {
        /// Free storage by size class (its capacity ÷ `classSize`).
        var free: [Int: [UnsafeMutableRawPointer]] = [:]
        var heldBytes = 0
    }

    private let state = Locked(State())

    init(maxHeldBytes: Int = 2 << 20) {
        self.maxHeldBytes = maxHeldBytes
    }

    deinit {
        for storage in state.withLock({ $0.free.values.joined() }) { storage.deallocate() }
    }

    /// The bytes of storage waiting in the pool now.
    var heldBytes: Int { state.withLock { $0.heldBytes } }

    /// A `Data` of `count` bytes that `fill` writes, in pooled storage when `count` is in
    /// ``pooledSizes`` and the pool is enabled. `fill` must write all `count` bytes.
    func makeData(count: Int, _ fill: (UnsafeMutableRawBufferPointer) -> Void) -> Data {
        guard count > 0 else { return Data() }
        guard Self.pooledSizes.contains(count), Self.isEnabled.withLock({ $0 }) else {
            let storage = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 16)
            fill(UnsafeMutableRawBufferPointer(start: storage, count: count))
            return Data(bytesNoCopy: storage, count: count, deallocator: .custom { pointer, _ in pointer.deallocate() })
        }
        let sizeClass = (count + Self.classSize - 1) / Self.classSize
        let storage = take(sizeClass) ?? UnsafeMutableRawPointer.allocate(byteCount: sizeClass * Self.classSize, alignment: 16)
        fill(UnsafeMutableRawBufferPointer(start: storage, count: count))
        return Data(bytesNoCopy: storage, count: count, deallocator: .custom { [self] pointer, _ in
            give(pointer, sizeClass)
        })
    }

    private func take(_ sizeClass: Int) -> UnsafeMutableRawPointer? {
        state.withLock { state in
            guard let storage = state.free[sizeClass]?.popLast() else { return nil }
            state.heldBytes -= sizeClass * Self.classSize
            return storage
        }
    }

    private func give(_ storage: UnsafeMutableRawPointer, _ sizeClass: Int) {
        let bytes = sizeClass * Self.classSize
        let kept = state.withLock { state -> Bool in
            guard state.heldBytes + bytes <= maxHeldBytes else { return false }
            state.free[sizeClass, default: []].append(storage)
            state.heldBytes += bytes
            return true
        }
        if !kept { storage.deallocate() }
    }
}
