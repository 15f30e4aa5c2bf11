import Foundation

/// Encoded bytes at an address that stays put for as long as this object lives, for libvips,
/// which reads its input buffer lazily and never copies it: a streamed animation's readers open
/// the file again and again, long after the decode that made them returned. `data` shares the
/// same memory, so the animation's `ImageAnimation.data` and the readers hold one copy.
final class PinnedData: @unchecked Sendable { // immutable after init: `bytes` is never written, and freed only with the last `data`
    /// The bytes, as `Data` (no copy of them).
    let data: Data
    /// Where they are.
    let bytes: UnsafeRawBufferPointer

    init(copying source: Data) {
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, source.count), alignment: 16)
        if !source.isEmpty { _ = source.copyBytes(to: memory.bindMemory(to: UInt8.self)) }
        bytes = UnsafeRawBufferPointer(start: memory.baseAddress, count: source.count)
        data = Data(bytesNoCopy: memory.baseAddress!, count: source.count, deallocator: .custom { pointer, _ in pointer.deallocate() })
    }
}
