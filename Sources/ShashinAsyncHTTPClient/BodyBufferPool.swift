import Foundation
import ShashinCore

/// Memory for response bodies, kept between downloads so that each body is written into pages
/// that are already resident.
///
/// A body handed to the pipeline is usually freed by another thread than the one that allocated
/// it (the caller's task resumes wherever the pool runs it). glibc then gives the freed memory
/// back to the kernel (`madvise`) often enough that the next body faults its pages in again while
/// it is written (BENCHMARKS.md, section on the network loaders, has the figures). So bodies of
/// more than 4 KB and up to 1 MB are written into buffers from here, and a body's `Data` gives its
/// buffer back when it is freed, on whatever thread. Buffer sizes step by a quarter of a power of
/// two (5, 6, 7, 8, 10, 12 KB…), so a body's buffer is at most a quarter larger than the body. At
/// most `maxBuffersPerClass` idle buffers of a size and `maxBytes` in all wait for reuse; the
/// rest are freed, and `drain()` frees them all. A body outside those sizes is a `Data` over an
/// allocation of its own.
final class BodyBufferPool: Sendable {
    /// The pool the loader's bodies come from.
    static let shared = BodyBufferPool()

    /// Bodies up to this size are not pooled.
    static let largestUnpooled = 4 << 10
    /// Bodies above this size are not pooled.
    static let largestPooled = 1 << 20
    /// A pooled body is larger than 2^smallestOctave, so its buffer is 5 KB or more.
    private static let smallestOctave = largestUnpooled.trailingZeroBitCount
    /// Four sizes per power of two, up to `largestPooled`.
    private static let classCount = (largestPooled.trailingZeroBitCount - smallestOctave) * 4

    /// The most idle buffers kept per size.
    let maxBuffersPerClass: Int
    /// The most idle bytes kept in all.
    let maxBytes: Int

    private struct Idle {
        /// Idle buffers' addresses, by size class.
        var buffers = Array(repeating: [UInt](), count: BodyBufferPool.classCount)
        var bytes = 0
    }

    private let idle = Locked(Idle()) // the idle buffers and their byte count, behind one lock

    init(maxBuffersPerClass: Int = 8, maxBytes: Int = 4 << 20) {
        self.maxBuffersPerClass = maxBuffersPerClass
        self.maxBytes = maxBytes
    }

    /// Bytes in idle buffers now.
    var idleBytes: Int { idle.withLock { $0.bytes } }

    /// Idle buffers of the size class `index` now.
    func idleCount(ofClass index: Int) -> Int { idle.withLock { $0.buffers[index].count } }

    /// Frees every idle buffer; buffers of bodies still alive come back (and are kept) as usual.
    func drain() {
        let addresses = idle.withLock { idle -> [UInt] in
            defer { idle = Idle() }
            return Array(idle.buffers.joined())
        }
        for address in addresses { UnsafeMutableRawPointer(bitPattern: address)?.deallocate() }
    }

    /// A `Data` of `count` bytes that `fill` writes (it must write all of them), in a pooled
    /// buffer when `count` is in the pooled sizes.
    func data(count: Int, fill: (UnsafeMutableRawBufferPointer) -> Void) -> Data {
        guard count > 0 else { return Data() }
        // Outside the pooled sizes: a buffer of its own, written in place all the same
        // (`Data(count:)` would zero it first), freed with the `Data`.
        let sizeClass = Self.sizeClass(for: count)
        let capacity = sizeClass?.capacity ?? count
        let reused = sizeClass.flatMap { sizeClass in
            idle.withLock { idle -> UInt? in
                guard let address = idle.buffers[sizeClass.index].popLast() else { return nil }
                idle.bytes -= capacity
                return address
            }
        }
        let buffer = reused.flatMap(UnsafeMutableRawPointer.init(bitPattern:))
            ?? UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        fill(UnsafeMutableRawBufferPointer(start: buffer, count: count))
        return Data(bytesNoCopy: buffer, count: count, deallocator: .custom { [self] pointer, _ in
            if let sizeClass { giveBack(pointer, sizeClass: sizeClass.index, capacity: capacity) } else { pointer.deallocate() }
        })
    }

    /// The size class of a body of `count` bytes and its buffers' size; nil outside the pooled
    /// sizes. Between two powers of two, 2^k < count ≤ 2^(k+1), the sizes step by 2^k / 4.
    static func sizeClass(for count: Int) -> (index: Int, capacity: Int)? {
        guard count > largestUnpooled, count <= largestPooled else { return nil }
        let octave = Int.bitWidth - 1 - (count - 1).leadingZeroBitCount // 2^octave < count ≤ 2^(octave+1)
        let base = 1 << octave, step = base >> 2
        let quarters = (count - base + step - 1) / step // 1...4
        return ((octave - smallestOctave) * 4 + quarters - 1, base + quarters * step)
    }

    private func giveBack(_ buffer: UnsafeMutableRawPointer, sizeClass: Int, capacity: Int) {
        let kept = idle.withLock { idle -> Bool in
            guard idle.buffers[sizeClass].count < maxBuffersPerClass, idle.bytes + capacity <= maxBytes else { return false }
            idle.buffers[sizeClass].append(UInt(bitPattern: buffer))
            idle.bytes += capacity
            return true
        }
        if !kept { buffer.deallocate() }
    }

    deinit {
        drain()
    }
}
