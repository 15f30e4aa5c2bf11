import Dispatch
import Foundation
import Testing
@testable import ShashinCore

/// A gate a decode waits at, on its own thread, until the test opens it.
final class DecodeGate: Sendable {
    private let isOpen = Locked(false)
    private let condition = NSCondition()

    /// Opens the gate; `true` the first time.
    @discardableResult
    func open() -> Bool {
        let opened = isOpen.withLock { open -> Bool in
            defer { open = true }
            return !open
        }
        condition.locked { condition.broadcast() }
        return opened
    }

    /// Blocks the calling thread until the gate is open.
    func wait() {
        condition.locked {
            while !isOpen.current { condition.wait() }
        }
    }
}

/// Frames whose every decode blocks its thread at `gate` until the test opens it: a long decode
/// whose end the test chooses. Each decode says it has begun (`begun`), and every frame decoded
/// is logged.
final class GatedFrames: AnimationFrameDecoding {
    let gate = DecodeGate()
    let log = Locked<[Int]>([])
    let begun: AsyncStream<Int>
    private let begin: AsyncStream<Int>.Continuation
    /// Run on the decoding thread once `count` decodes have begun.
    private let onAllBegun: (count: Int, action: @Sendable () -> Void)?
    private let begunCount = Locked(0)

    init(onAllBegun: (count: Int, action: @Sendable () -> Void)? = nil) {
        (begun, begin) = AsyncStream.makeStream()
        self.onAllBegun = onAllBegun
    }

    func makeReader() throws -> any AnimationFrameReading { Reader(owner: self) }

    final class Reader: AnimationFrameReading {
        let owner: GatedFrames
        init(owner: GatedFrames) { self.owner = owner }

        func frame(at index: Int) throws -> Bitmap {
            owner.begin.yield(index)
            let count = owner.begunCount.withLock { count -> Int in
                count += 1
                return count
            }
            if let onAllBegun = owner.onAllBegun, count == onAllBegun.count { onAllBegun.action() }
            owner.gate.wait()
            owner.log.withLock { $0.append(index) }
            return Bitmap(width: 1, height: 1, pixels: [UInt8(index), 0, 0, 255])
        }
    }

    /// A source of `frames` frames decoded by `decoder`.
    static func source(_ decoder: GatedFrames, frames: Int = 8) -> AnimationFrameSource {
        AnimationFrameSource(durations: Array(repeating: 0.1, count: frames), loopCount: 0, decoder: decoder)
    }
}

/// Frame reads run off Swift's cooperative pool: while they decode, every other task of the
/// process goes on, and a cancelled read returns at once. Ordering checks: the tests decide when
/// each decode ends (`DecodeGate`), and never wait on a clock.
@Suite struct AnimationFrameOffThePoolTests {
    /// How long a gate stays shut before a watchdog thread opens it: only reached when a read
    /// holds the threads the test itself needs to go on (the decode held on the cooperative pool,
    /// as a task that decodes synchronously holds it), so that the test then ends, and fails on
    /// its order, rather than hangs. Never a measure of anything.
    static let watchdog: DispatchTimeInterval = .seconds(60)

    /// Frames whose decodes wait at their gate, which a watchdog opens `watchdog` after `reads`
    /// decodes have begun (noting it in `events`) unless the test opened it first.
    static func gatedFrames(reads: Int, events: Locked<[String]>) -> GatedFrames {
        let gate = Locked<DecodeGate?>(nil)
        let decoder = GatedFrames(onAllBegun: (reads, {
            DispatchQueue.global().asyncAfter(deadline: .now() + watchdog) {
                if gate.current?.open() == true { events.withLock { $0.append("the watchdog opened the gate") } }
            }
        }))
        gate.withLock { $0 = decoder.gate }
        return decoder
    }

    @Test func aTaskStartedAfterLongFrameReadsFinishesBeforeThem() async throws {
        // As many reads as the cooperative pool has threads (two on a two-core machine): a read
        // that held a pool thread while it decodes would leave none for the task started after.
        let reads = max(2, ProcessInfo.processInfo.activeProcessorCount)
        let events = Locked<[String]>([])
        let decoder = Self.gatedFrames(reads: reads, events: events)
        let buffers = (0..<reads).map { _ in GatedFrames.source(decoder).makeBuffer(capacity: 1) }
        let readTasks = buffers.enumerated().map { number, buffer in
            Task {
                let frame = try await buffer.frame(at: number + 1)
                events.withLock { $0.append("read ended") }
                return frame
            }
        }
        var begun = 0
        for await _ in decoder.begun {
            begun += 1
            if begun == reads { break }
        }
        // Every read is inside its decode, blocked at the gate. A task started now runs to its
        // end while they stay blocked.
        let later = Task { events.withLock { $0.append("a later task ended") } }
        await later.value
        if decoder.gate.open() { events.withLock { $0.append("the test opened the gate") } }
        for (number, task) in readTasks.enumerated() { #expect(try await task.value.pixels[0] == UInt8(number + 1)) }
        #expect(events.current == ["a later task ended", "the test opened the gate"] + Array(repeating: "read ended", count: reads))
    }

    @Test func aCancelledReadReturnsAtOnceAndTheDecodesQueuedBehindItNeverRun() async throws {
        let events = Locked<[String]>([])
        let decoder = Self.gatedFrames(reads: 1, events: events)
        let buffer = GatedFrames.source(decoder).makeBuffer(capacity: 1)
        let decoding = Task { try await buffer.frame(at: 1) }
        var begun = decoder.begun.makeAsyncIterator()
        #expect(await begun.next() == 1)
        // Frame 5 waits behind frame 1's decode on the buffer's queue.
        let queued = Task { try await buffer.frame(at: 5) }
        decoding.cancel()
        queued.cancel()
        for (name, task) in [("the decoding read", decoding), ("the queued read", queued)] {
            let result = await task.result
            #expect(throws: CancellationError.self) { try result.get() }
            events.withLock { $0.append("\(name) returned") }
        }
        if decoder.gate.open() { events.withLock { $0.append("the test opened the gate") } }
        #expect(events.current == ["the decoding read returned", "the queued read returned", "the test opened the gate"])
        // The decode under way went on to its end, and its frame is held; frame 5 never decoded.
        #expect(try await buffer.frame(at: 1).pixels[0] == 1)
        try await buffer.fill(from: 2, count: 0)
        #expect(decoder.log.current == [1])
        #expect(buffer.decodedFrameCount == 1)
    }

    @Test func aReadByACancelledTaskDecodesNothing() async throws {
        let decoder = GatedFrames()
        decoder.gate.open()
        let buffer = GatedFrames.source(decoder).makeBuffer()
        let read = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await buffer.frame(at: 3)
        }
        await #expect(throws: CancellationError.self) { try await read.value }
        try await buffer.fill(from: 0, count: 0)
        #expect(decoder.log.current.isEmpty)
    }

    @Test func aCancelledPlaybackFillReturnsAtOnce() async throws {
        let events = Locked<[String]>([])
        let decoder = Self.gatedFrames(reads: 1, events: events)
        let playback = AnimationPlayback(buffer: GatedFrames.source(decoder).makeBuffer(), now: { 0 })
        #expect(playback.step().needsFill)
        let fill = Task { try await playback.fill() }
        var begun = decoder.begun.makeAsyncIterator()
        #expect(await begun.next() == 1)
        fill.cancel()
        await #expect(throws: CancellationError.self) { try await fill.value }
        if decoder.gate.open() { events.withLock { $0.append("the test opened the gate") } }
        #expect(events.current == ["the test opened the gate"])
        try await playback.buffer.fill(from: 1, count: 0)
        #expect(decoder.log.current == [1], "the decode under way ended on its thread")
    }
}
