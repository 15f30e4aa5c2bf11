import Foundation

/// Encoded bytes at an address that stays put for as long as this object lives, for libvips,
/// which reads its input buffer lazily and never copies it: a streamed animation's readers open
/// the file again and again, long after the decode that made them returned. The object owns the
/// copy and frees it when it goes, after every reader holding it (a `Data` made over the memory
/// without a copy cannot promise that: Foundation copies a short one inline and frees the buffer).
final class PinnedData: @unchecked Sendable { // immutable after init: `bytes` is never written, and freed only in deinit
    /// The bytes as given.
    let data: Data
    /// A copy of them, where libvips reads.
    let bytes: UnsafeRawBufferPointer

    init(copying source: Data) {
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, source.count), alignment: 16)
        if !source.isEmpty { _ = source.copyBytes(to: memory.bindMemory(to: UInt8.self)) }
        bytes = UnsafeRawBufferPointer(start: memory.baseAddress, count: source.count)
        data = source
    }

    deinit {
        bytes.baseAddress.map { UnsafeMutableRawPointer(mutating: $0).deallocate() }
    }
}
