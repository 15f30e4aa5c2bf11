import Foundation
import NIOCore

/// A response body as the event loop reads it, joined into one `Data` by whoever reads it.
///
/// A part that fills at least half of its storage is kept as NIO handed it over, without a copy;
/// a smaller one is copied into a buffer of the body's own, so the memory held stays within about
/// twice the bytes received however the server splits them (a server sending a byte at a time
/// would otherwise pin one read buffer per byte). `data()` joins the parts on the calling thread,
/// into a buffer of `BodyBufferPool` (which says why) or, outside its sizes, a `Data` allocated
/// there: made on the event loop, every body of the loop's connections would come from one glibc
/// arena, which returns freed bodies' pages to the kernel (`madvise`) and faults them in again
/// for the next ones.
struct CollectedBody {
    /// The body in order: NIO's buffers and the body's own.
    private(set) var parts: [ByteBuffer] = []
    /// The bytes received.
    private(set) var count = 0
    /// Whether the last of `parts` is the body's own, which small parts are appended to.
    private var lastIsOwn = false

    /// The smallest buffer of the body's own.
    static let ownBufferSize = 16_384

    mutating func append(_ part: ByteBuffer) {
        let size = part.readableBytes
        guard size > 0 else { return }
        count += size
        if size * 2 >= part.storageCapacity {
            parts.append(part)
            lastIsOwn = false
        } else if lastIsOwn {
            parts[parts.count - 1].writeImmutableBuffer(part)
        } else {
            var own = ByteBufferAllocator().buffer(capacity: max(size, Self.ownBufferSize))
            own.writeImmutableBuffer(part)
            parts.append(own)
            lastIsOwn = true
        }
    }

    /// The bytes held in storage for the body.
    var heldBytes: Int { parts.reduce(0) { $0 + $1.storageCapacity } }

    /// The body as one `Data`, in a buffer from `pool` when its size is pooled. A pooled buffer
    /// may hold an earlier body's bytes, so every byte of it must be this body's: the parts'
    /// lengths must add up to `count` exactly (checked; a mismatch stops the process rather than
    /// serve another response's bytes).
    func data(pool: BodyBufferPool = .shared) -> Data {
        pool.data(count: count) { destination in
            var offset = 0
            for part in parts {
                part.withUnsafeReadableBytes { source in
                    precondition(offset + source.count <= destination.count, "a body's parts exceed its count")
                    guard let from = source.baseAddress, let to = destination.baseAddress else { return }
                    (to + offset).copyMemory(from: from, byteCount: source.count)
                    offset += source.count
                }
            }
            precondition(offset == destination.count, "a body's parts fall short of its count")
        }
    }
}
