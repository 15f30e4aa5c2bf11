import Foundation
import NIOCore
@testable import ShashinAsyncHTTPClient
import Testing

@Suite("AsyncHTTPClient loader: collected body")
struct CollectedBodyTests {
    /// `count` bytes as the only readable part of a fresh buffer of `storage` bytes, as a read
    /// that returned little into a large buffer hands them over.
    private static func part(_ count: Int, storage: Int, seed: UInt8) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: storage)
        buffer.writeBytes((0..<count).map { UInt8(truncatingIfNeeded: Int(seed) &+ $0) })
        return buffer
    }

    @Test("parts that fill their buffers are kept as they are, and the body is every byte in order")
    func largePartsKept() {
        var body = CollectedBody()
        var expected = Data()
        for index in 0..<4 {
            let part = Self.part(16_000, storage: 16_384, seed: UInt8(index))
            expected.append(contentsOf: part.readableBytesView)
            body.append(part)
        }
        #expect(body.count == 64_000)
        #expect(body.parts.count == 4)
        #expect(body.data() == expected)
    }

    @Test("small parts of large buffers are copied: the memory held stays near the bytes received")
    func smallPartsCopied() {
        var body = CollectedBody()
        var expected = Data()
        for index in 0..<2_000 {
            // 10 bytes in a 64 KB read buffer each: kept as they are, 128 MB held for 20 KB.
            let part = Self.part(10, storage: 65_536, seed: UInt8(truncatingIfNeeded: index))
            expected.append(contentsOf: part.readableBytesView)
            body.append(part)
        }
        #expect(body.count == 20_000)
        #expect(body.heldBytes <= 2 * 20_000 + CollectedBody.ownBufferSize)
        #expect(body.data() == expected)
    }

    @Test("large and small parts interleaved keep their order; empty parts add nothing")
    func mixedOrder() {
        var body = CollectedBody()
        var expected = Data()
        let parts = [Self.part(10, storage: 4_096, seed: 1), Self.part(3_000, storage: 4_096, seed: 2),
                     Self.part(0, storage: 4_096, seed: 3), Self.part(7, storage: 65_536, seed: 4),
                     Self.part(9, storage: 65_536, seed: 5), Self.part(4_096, storage: 4_096, seed: 6),
                     Self.part(1, storage: 64, seed: 7)]
        for part in parts {
            expected.append(contentsOf: part.readableBytesView)
            body.append(part)
        }
        #expect(body.count == expected.count)
        #expect(body.data() == expected)
        #expect(CollectedBody().data().isEmpty)
    }
}
