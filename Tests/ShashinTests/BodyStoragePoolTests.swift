import Foundation
@testable import ShashinAsyncHTTPClient
import Testing

@Suite("AsyncHTTPClient loader: the body storage pool")
struct BodyStoragePoolTests {
    private static func bytes(_ count: Int, seed: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed) }
    }

    private static func data(_ bytes: [UInt8], from pool: BodyStoragePool) -> Data {
        pool.makeData(count: bytes.count) { storage in
            bytes.withUnsafeBytes { storage.copyMemory(from: $0) }
        }
    }

    private static func address(of data: Data) -> UInt {
        data.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
    }

    @Test("a released body's storage serves the next body of its size class, with that body's bytes")
    func storageIsReused() {
        let pool = BodyStoragePool()
        var first: Data? = Self.data(Self.bytes(50_000, seed: 1), from: pool)
        let firstAddress = Self.address(of: first!)
        #expect(first == Data(Self.bytes(50_000, seed: 1)))
        #expect(pool.heldBytes == 0) // in use, not in the pool
        first = nil
        #expect(pool.heldBytes == 4 * BodyStoragePool.classSize)
        let second = Self.data(Self.bytes(60_000, seed: 2), from: pool) // the same class: 49,153–65,536 bytes
        #expect(Self.address(of: second) == firstAddress)
        #expect(second == Data(Self.bytes(60_000, seed: 2)))
        #expect(pool.heldBytes == 0)
        let third = Self.data(Self.bytes(70_000, seed: 3), from: pool) // another class: new storage
        #expect(Self.address(of: third) != firstAddress)
        #expect(third == Data(Self.bytes(70_000, seed: 3)))
    }

    @Test("the pool holds at most its limit; what passes it goes back to malloc")
    func heldBytesBounded() {
        let pool = BodyStoragePool(maxHeldBytes: 200_000)
        var bodies = (0..<10).map { Self.data(Self.bytes(30_000, seed: $0), from: pool) }
        for (index, body) in bodies.enumerated() { #expect(body == Data(Self.bytes(30_000, seed: index))) }
        bodies.removeAll()
        #expect(pool.heldBytes == 6 * 2 * BodyStoragePool.classSize) // six 32 KB classes fit in 200,000 bytes
    }

    @Test("bodies outside the pooled sizes, and every body with the pool off, never enter it")
    func outsideSizes() {
        let pool = BodyStoragePool()
        do {
            let small = Self.data(Self.bytes(1_000, seed: 4), from: pool)
            let large = Self.data(Self.bytes(BodyStoragePool.pooledSizes.upperBound + 1, seed: 5), from: pool)
            #expect(small == Data(Self.bytes(1_000, seed: 4)))
            #expect(large.count == BodyStoragePool.pooledSizes.upperBound + 1)
            #expect(Self.data([], from: pool).isEmpty)
        }
        #expect(pool.heldBytes == 0)
    }

    @Test("a body copied and mutated keeps the original intact, and its storage returns once")
    func copiesAndMutation() {
        let pool = BodyStoragePool()
        do {
            let body = Self.data(Self.bytes(20_000, seed: 6), from: pool)
            var copy = body
            copy[0] ^= 0xFF
            copy.append(contentsOf: [1, 2, 3])
            #expect(body == Data(Self.bytes(20_000, seed: 6)))
            #expect(copy.count == 20_003)
            let slice = body[100..<200]
            #expect(Array(slice) == Array(Self.bytes(20_000, seed: 6)[100..<200]))
        }
        #expect(pool.heldBytes == 2 * BodyStoragePool.classSize)
    }
}
