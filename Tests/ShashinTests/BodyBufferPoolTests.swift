import Dispatch
import Foundation
@testable import ShashinAsyncHTTPClient
import ShashinCore
import Testing

@Suite("AsyncHTTPClient loader: body buffer pool")
struct BodyBufferPoolTests {
    /// `count` bytes of a pattern that differs with `seed`.
    private static func fill(_ buffer: UnsafeMutableRawBufferPointer, seed: Int) {
        for index in buffer.indices { buffer[index] = UInt8(truncatingIfNeeded: index &* 31 &+ seed) }
    }

    private static func expected(_ count: Int, seed: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed) })
    }

    private static func address(of data: Data) -> UInt {
        data.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
    }

    @Test("sizes: none up to 4 KB or above 1 MB; between, a buffer at most a quarter larger, one size per class")
    func sizesStepByQuartersBetween4KBAnd1MB() throws {
        #expect(BodyBufferPool.sizeClass(for: 0) == nil)
        #expect(BodyBufferPool.sizeClass(for: 4_096) == nil)
        #expect(BodyBufferPool.sizeClass(for: (1 << 20) + 1) == nil)
        #expect(try #require(BodyBufferPool.sizeClass(for: 4_097)) == (0, 5_120))
        #expect(try #require(BodyBufferPool.sizeClass(for: 8_192)).capacity == 8_192)
        #expect(try #require(BodyBufferPool.sizeClass(for: 8_193)).capacity == 10_240)
        #expect(try #require(BodyBufferPool.sizeClass(for: 1 << 20)).capacity == 1 << 20)
        var capacityOfClass: [Int: Int] = [:]
        for count in stride(from: 4_097, through: 1 << 20, by: 97) {
            let (index, capacity) = try #require(BodyBufferPool.sizeClass(for: count))
            #expect(capacity >= count && capacity * 4 <= count * 5, "count \(count): buffer \(capacity)")
            #expect((0..<32).contains(index))
            #expect(capacityOfClass[index, default: capacity] == capacity, "class \(index) has one size")
            capacityOfClass[index] = capacity
        }
        #expect(capacityOfClass.count == 32)
    }

    @Test("a body holds exactly the bytes written, pooled or not", arguments: [1, 4_096, 4_097, 56_193, 1 << 20, (1 << 20) + 5])
    func aBodyHoldsExactlyItsBytes(count: Int) {
        let pool = BodyBufferPool()
        let data = pool.data(count: count) { Self.fill($0, seed: count) }
        #expect(data == Self.expected(count, seed: count))
    }

    @Test("a freed body's buffer is reused by the next body of its size, when freed on another thread")
    func aBufferFreedOnAnotherThreadIsReused() throws {
        let pool = BodyBufferPool()
        let held = Locked<Data?>(pool.data(count: 56_000) { Self.fill($0, seed: 1) })
        let firstAddress = held.withLock { Self.address(of: $0 ?? Data()) }
        #expect(pool.idleBytes == 0)
        // The only reference goes on a thread of the test's own, as when a pipeline caller frees a body.
        let freed = DispatchSemaphore(value: 0)
        let thread = Thread {
            held.withLock { $0 = nil }
            freed.signal()
        }
        thread.start()
        freed.wait()
        let (index, capacity) = try #require(BodyBufferPool.sizeClass(for: 56_000))
        #expect(pool.idleBytes == capacity)
        #expect(pool.idleCount(ofClass: index) == 1)
        let second = pool.data(count: 56_100) { Self.fill($0, seed: 2) }
        #expect(Self.address(of: second) == firstAddress)
        #expect(second == Self.expected(56_100, seed: 2))
        #expect(pool.idleBytes == 0)
    }

    @Test("a pooled body that grows moves to memory of its own and gives its buffer back once")
    func aGrownBodyGivesItsBufferBackOnce() throws {
        let pool = BodyBufferPool()
        let capacity = try #require(BodyBufferPool.sizeClass(for: 10_000)).capacity
        do {
            var body = pool.data(count: 10_000) { Self.fill($0, seed: 4) }
            body.append(7)
            #expect(body.count == 10_001)
            #expect(body.prefix(10_000) == Self.expected(10_000, seed: 4))
            #expect(pool.idleBytes <= capacity)
        }
        #expect(pool.idleBytes == capacity)
        #expect(pool.idleCount(ofClass: BodyBufferPool.sizeClass(for: 10_000)!.index) == 1)
    }

    @Test("drain frees every idle buffer; a body alive meanwhile gives its buffer back afterwards")
    func drainFreesIdleBuffers() throws {
        let pool = BodyBufferPool()
        let capacity = try #require(BodyBufferPool.sizeClass(for: 30_000)).capacity
        do {
            let freedBefore = pool.data(count: 30_000) { Self.fill($0, seed: 5) }
            #expect(freedBefore.count == 30_000)
        }
        #expect(pool.idleBytes == capacity)
        do {
            let alive = pool.data(count: 30_000) { Self.fill($0, seed: 6) }
            pool.drain()
            #expect(pool.idleBytes == 0)
            #expect(alive == Self.expected(30_000, seed: 6))
        }
        #expect(pool.idleBytes == capacity)
        pool.drain()
        #expect(pool.idleBytes == 0)
    }

    @Test("a changed copy leaves the body as it was; the buffer comes back once both are gone")
    func aChangedCopyLeavesTheBodyAsItWas() {
        let pool = BodyBufferPool()
        do {
            let body = pool.data(count: 10_000) { Self.fill($0, seed: 3) }
            var copy = body
            copy[0] = copy[0] &+ 1
            #expect(body == Self.expected(10_000, seed: 3))
            #expect(copy != body)
            #expect(pool.idleBytes == 0)
        }
        #expect(pool.idleBytes == BodyBufferPool.sizeClass(for: 10_000)!.capacity)
    }

    @Test("idle buffers stay within the per-size count and the byte limit; the rest are freed")
    func idleBuffersStayWithinBothLimits() {
        let perClass = BodyBufferPool(maxBuffersPerClass: 2, maxBytes: 1 << 20)
        do {
            let bodies = (0..<5).map { seed in perClass.data(count: 20_000) { Self.fill($0, seed: seed) } }
            #expect(bodies.count == 5)
        }
        #expect(perClass.idleBytes == 2 * BodyBufferPool.sizeClass(for: 20_000)!.capacity)

        let byBytes = BodyBufferPool(maxBuffersPerClass: 8, maxBytes: 100_000)
        do {
            let bodies = (0..<8).map { seed in byBytes.data(count: 40_000) { Self.fill($0, seed: seed) } }
            #expect(bodies.count == 8)
        }
        let capacity = BodyBufferPool.sizeClass(for: 40_000)!.capacity
        #expect(byBytes.idleBytes == (100_000 / capacity) * capacity)
    }

    @Test("bodies made and freed on many threads at once: every byte right, the pool within its limits")
    func bodiesMadeAndFreedOnManyThreads() {
        let pool = BodyBufferPool(maxBuffersPerClass: 4, maxBytes: 1 << 20)
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 400) { iteration in
            let count = 5_000 + (iteration % 40) * 3_001
            let body = pool.data(count: count) { Self.fill($0, seed: iteration) }
            if body != Self.expected(count, seed: iteration) { failures.withLock { $0 += 1 } }
        }
        #expect(failures.withLock { $0 } == 0)
        #expect(pool.idleBytes <= 1 << 20)
        #expect(pool.idleBytes > 0)
        for index in 0..<32 { #expect(pool.idleCount(ofClass: index) <= 4) }
    }
}
