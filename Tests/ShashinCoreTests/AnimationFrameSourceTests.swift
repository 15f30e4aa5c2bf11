import Foundation
import Testing
@testable import ShashinCore

/// A decoder's frames for the frame-source tests: frame `i` is a 1×1 bitmap whose red value is
/// `i`; every frame produced is logged, and `onDecode` runs before each (to move a clock).
final class LoggedFrames: AnimationFrameDecoding {
    let log = Locked<[Int]>([])
    let readers = Locked(0)
    let onDecode: @Sendable () -> Void

    init(onDecode: @escaping @Sendable () -> Void = {}) { self.onDecode = onDecode }

    func makeReader() throws -> any AnimationFrameReading {
        readers.withLock { $0 += 1 }
        return Reader(owner: self)
    }

    final class Reader: AnimationFrameReading {
        let owner: LoggedFrames
        init(owner: LoggedFrames) { self.owner = owner }
        func frame(at index: Int) throws -> Bitmap {
            owner.onDecode()
            owner.log.withLock { $0.append(index) }
            return Bitmap(width: 1, height: 1, pixels: [UInt8(index), 0, 0, 255])
        }
    }

    static func source(frames: Int, duration: TimeInterval = 0.1, loopCount: Int = 0,
                       onDecode: @escaping @Sendable () -> Void = {}) -> (AnimationFrameSource, LoggedFrames) {
        let decoder = LoggedFrames(onDecode: onDecode)
        return (AnimationFrameSource(durations: Array(repeating: duration, count: frames), loopCount: loopCount, decoder: decoder), decoder)
    }
}

/// A clock a test moves by hand, in seconds.
final class ManualAnimationClock: Sendable {
    private let time = Locked<TimeInterval>(100)
    var now: TimeInterval { time.current }
    func advance(by seconds: TimeInterval) { time.withLock { $0 += seconds } }
}

/// The frames of one playback: decoded on demand, at most `capacity` held, in order.
@Suite struct AnimationFrameBufferTests {
    @Test func framesAreDecodedOnlyWhenAskedForAndAtMostCapacityAreHeld() async throws {
        let (source, decoder) = LoggedFrames.source(frames: 10)
        let buffer = source.makeBuffer(capacity: 3)
        #expect(decoder.readers.current == 0, "nothing is decoded before a frame is asked for")
        #expect(buffer.bufferedFrame(at: 0) == nil)
        try await buffer.fill(from: 1)
        #expect(decoder.log.current == [1, 2, 3])
        #expect(buffer.bufferedIndices == [1, 2, 3])
        #expect(buffer.bufferedFrame(at: 2)?.pixels[0] == 2)
        try await buffer.fill(from: 2)
        #expect(decoder.log.current == [1, 2, 3, 4], "frames already held are not decoded again")
        #expect(buffer.bufferedIndices == [2, 3, 4], "frame 1 was let go")
        #expect(try await buffer.frame(at: 4).pixels[0] == 4)
        #expect(buffer.decodedFrameCount == 4)
    }

    @Test func theWindowWrapsAfterTheLastFrame() async throws {
        let (source, decoder) = LoggedFrames.source(frames: 4)
        let buffer = source.makeBuffer(capacity: 3)
        try await buffer.fill(from: 3)
        #expect(decoder.log.current == [3, 0, 1])
        #expect(buffer.bufferedIndices == [3, 0, 1])
        #expect(decoder.readers.current == 1, "one reader per buffer: it starts over itself")
    }

    @Test func aCapacityLargerThanTheAnimationHoldsEveryFrameOnce() async throws {
        let (source, decoder) = LoggedFrames.source(frames: 2)
        let buffer = source.makeBuffer(capacity: 8)
        try await buffer.fill(from: 0)
        try await buffer.fill(from: 1)
        #expect(decoder.log.current == [0, 1])
        #expect(source.makeBuffer(capacity: 0).capacity == 1)
    }

    @Test func anIndexOutsideTheFramesIsATypedError() async {
        let (source, _) = LoggedFrames.source(frames: 3)
        await #expect(throws: ImagePipelineError.self) { try await source.makeBuffer().frame(at: 3) }
        await #expect(throws: ImagePipelineError.self) { try await source.makeBuffer().fill(from: -1) }
    }

    @Test func mappedFramesGoThroughTheTransformAsTheyDecode() async throws {
        let (source, decoder) = LoggedFrames.source(frames: 5)
        let inverted = source.mapFrames { Bitmap(width: 1, height: 1, pixels: [255 - $0.pixels[0], 0, 0, 255]) }
        #expect(decoder.log.current.isEmpty)
        #expect(try await inverted.makeBuffer().frame(at: 2).pixels[0] == 253)
        #expect(inverted.durations == source.durations && inverted.loopCount == source.loopCount)
    }

    @Test func twoBuffersOfOneSourceDecodeApart() async throws {
        let (source, decoder) = LoggedFrames.source(frames: 6)
        let a = source.makeBuffer(capacity: 1), b = source.makeBuffer(capacity: 1)
        try await a.fill(from: 4)
        try await b.fill(from: 1)
        #expect(decoder.readers.current == 2)
        #expect(a.bufferedIndices == [4] && b.bufferedIndices == [1])
    }

    @Test func concurrentFillsAndLookupsStayConsistent() async throws {
        let (source, _) = LoggedFrames.source(frames: 30)
        let buffer = source.makeBuffer(capacity: 3)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for start in 0..<30 {
                group.addTask {
                    try await buffer.fill(from: start)
                    if let frame = buffer.bufferedFrame(at: start) { #expect(frame.pixels[0] == UInt8(start)) }
                    #expect(buffer.bufferedIndices.count <= 3)
                }
            }
            try await group.waitForAll()
        }
    }
}

/// Playing a frame source by a clock: frames follow their durations, and a decode that is late
/// drops frames rather than showing them late.
@Suite struct AnimationPlaybackTests {
    /// Steps like a player: fills when asked (the decode may move the clock), shows frames, and
    /// sleeps for the wait. Returns the frames shown with the clock's time when shown.
    func play(_ playback: AnimationPlayback, clock: ManualAnimationClock, until end: TimeInterval) async throws -> [(index: Int, at: TimeInterval)] {
        var shown: [(Int, TimeInterval)] = []
        var steps = 0
        while clock.now < end, steps < 10_000 {
            steps += 1
            let step = playback.step()
            if let frame = step.frame {
                #expect(Int(frame.bitmap.pixels[0]) == frame.index)
                shown.append((frame.index, clock.now))
            }
            if step.needsFill {
                // A fill the playback asks for always has a frame to decode: else it would spin.
                let decodedBefore = playback.buffer.decodedFrameCount
                try await playback.fill()
                #expect(playback.buffer.decodedFrameCount > decodedBefore, "a fill with nothing to decode at step \(steps)")
                continue
            }
            guard let wait = step.wait else { break }
            clock.advance(by: wait)
        }
        return shown
    }

    @Test func framesDecodedInTimeAllShowAtTheirTimes() async throws {
        let clock = ManualAnimationClock()
        let (source, decoder) = LoggedFrames.source(frames: 5, duration: 0.1)
        let playback = AnimationPlayback(buffer: source.makeBuffer(capacity: 3), now: { clock.now })
        let shown = try await play(playback, clock: clock, until: clock.now + 1.0)
        #expect(shown.map(\.index) == [1, 2, 3, 4, 0, 1, 2, 3, 4])
        #expect(playback.droppedFrameCount == 0)
        #expect(decoder.log.current.count <= shown.count + 3, "each frame decoded once, a buffer ahead: \(decoder.log.current)")
    }

    @Test func aSlowDecoderDropsFramesAndNeverShowsOneLate() async throws {
        let clock = ManualAnimationClock()
        // Each frame takes 250 ms to decode; each shows for 100 ms.
        let (source, _) = LoggedFrames.source(frames: 20, duration: 0.1) { clock.advance(by: 0.25) }
        let playback = AnimationPlayback(buffer: source.makeBuffer(capacity: 2), now: { clock.now })
        let start = clock.now
        let shown = try await play(playback, clock: clock, until: start + 6)
        #expect(shown.count >= 4)
        for (index, at) in shown {
            let due = playback.timeline.frame(at: at - start).index
            #expect(index == due, "frame \(index) shown at \(at - start) s, when frame \(due) was due")
        }
        #expect(playback.droppedFrameCount > shown.count, "most frames are dropped: \(playback.droppedFrameCount) of \(shown.count)")
        #expect(playback.shownFrameCount == shown.count + 1)
    }

    @Test func aSlowFirstDecodeThenFastOnesCatchesUp() async throws {
        let clock = ManualAnimationClock()
        let decodes = Locked(0)
        // The first decode (which opens the file) takes 350 ms, every later one 20 ms.
        let (source, _) = LoggedFrames.source(frames: 6, duration: 0.1) {
            let first = decodes.withLock { count -> Bool in count += 1; return count == 1 }
            clock.advance(by: first ? 0.35 : 0.02)
        }
        let playback = AnimationPlayback(buffer: source.makeBuffer(capacity: 3), now: { clock.now })
        let start = clock.now
        let shown = try await play(playback, clock: clock, until: start + 3)
        #expect(shown.count >= 20, "it catches up once decodes are fast: \(shown.count) frames in 3 s")
        for (index, at) in shown { #expect(index == playback.timeline.frame(at: at - start).index) }
    }

    @Test func decodesOfEveryLengthNeverAskForAFillWithNothingToDecode() async throws {
        // Decode times drawn from a seeded generator, 0–300 ms against frames of 100 ms: late
        // and on-time decodes mixed, across loops; `play` checks every fill decodes a frame.
        for seed in UInt64(1)...200 {
            let clock = ManualAnimationClock()
            let state = Locked(seed)
            let (source, _) = LoggedFrames.source(frames: 5, duration: 0.1) {
                let draw = state.withLock { value -> UInt64 in
                    value = value &* 6364136223846793005 &+ 1442695040888963407
                    return value >> 33
                }
                clock.advance(by: Double(draw % 300) / 1000)
            }
            let playback = AnimationPlayback(buffer: source.makeBuffer(capacity: Int(seed % 3) + 1), now: { clock.now })
            _ = try await play(playback, clock: clock, until: clock.now + 3)
        }
    }

    @Test func aSourceOfOneFrameIsStill() async throws {
        let (source, decoder) = LoggedFrames.source(frames: 1)
        let step = AnimationPlayback(buffer: source.makeBuffer(), now: { 0 }).step()
        #expect(step.frame == nil && !step.needsFill && step.wait == nil)
        #expect(decoder.log.current.isEmpty)
    }

    @Test func theLastLoopEndsOnTheLastFrame() async throws {
        let clock = ManualAnimationClock()
        let (source, _) = LoggedFrames.source(frames: 3, duration: 0.1, loopCount: 2)
        let playback = AnimationPlayback(buffer: source.makeBuffer(), now: { clock.now })
        let shown = try await play(playback, clock: clock, until: clock.now + 5)
        #expect(shown.map(\.index) == [1, 2, 0, 1, 2])
        #expect(playback.step().wait == nil, "the animation has ended")
    }

    @Test func decodedFramesPlayThroughTheSamePath() async throws {
        let frames = (0..<3).map { AnimationFrame(bitmap: Bitmap(width: 1, height: 1, pixels: [UInt8($0), 0, 0, 255]), duration: 0.05) }
        let animation = ImageAnimation(format: .gif, frameCount: 3, data: Data(), frames: frames, loopCount: 1)
        let source = try #require(animation.playableFrames)
        let clock = ManualAnimationClock()
        let shown = try await play(AnimationPlayback(buffer: source.makeBuffer(), now: { clock.now }), clock: clock, until: clock.now + 1)
        #expect(shown.map(\.index) == [1, 2])
        #expect(ImageAnimation(format: .gif, frameCount: 3, data: Data(), shortfall: .firstFrameRequested).playableFrames == nil)
    }
}
