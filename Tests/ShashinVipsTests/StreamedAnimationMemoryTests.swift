// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ImageServer
import ShashinCore
@testable import ShashinVips
import Testing

/// A 300-frame 800×600 GIF played through its frame source, at full size, keeps the process's
/// peak resident memory under 32 MB above idle; decoded whole it takes about 550 MB. Playing
/// it decodes each frame once (not n frames for frame n).
///
/// Peak resident memory is process-wide: this suite runs with the other memory suites in a
/// process of their own, one test at a time (its name ends in `DecoderMemory`, which
/// scripts/test-suites.sh's memory group selects).
@Suite(.serialized) struct StreamedAnimationDecoderMemory {
    static let gif = AnimatedGIFWriter.movingSquare(width: 800, height: 600, frames: 300)
    static let bound = 32 << 20

    /// A clock the playback reads, moved by hand.
    final class Clock: Sendable {
        private let time = Locked<TimeInterval>(0)
        var now: TimeInterval { time.current }
        func advance(by seconds: TimeInterval) { time.withLock { $0 += seconds } }
    }

    /// Decodes the GIF as a frame source and plays it through `AnimationPlayback` for one loop
    /// and a bit (decoding when the playback asks, the clock moving by each wait); gives the
    /// frames shown and the frames decoded.
    static func play() async throws -> (shown: Int, decoded: Int, frames: Int) {
        let clock = Clock()
        let (image, _) = try StreamedFixtures.countingFrames { try StreamedFixtures.decode(gif, .frameSource) }
        let source = try #require(image.animation?.frameSource)
        let playback = AnimationPlayback(buffer: source.makeBuffer(), now: { clock.now })
        let (_, decoded) = try await StreamedFixtures.countingFrames { () async throws -> Void in
            let end = playback.timeline.cycle * 1.1
            while clock.now < end {
                let step = playback.step()
                if step.needsFill {
                    try await playback.fill()
                    continue
                }
                guard let wait = step.wait else { break }
                clock.advance(by: wait)
            }
        }
        return (playback.shownFrameCount, decoded, source.frameCount)
    }

    @Test func a300FrameGIFPlaysThroughItsFrameSourceUnder32MBAboveIdle() async throws {
        _ = try await Self.play() // warm-up: libvips started, its threads made
        _ = ResidentMemory.settledPrivateBytes()
        try #require(ResidentMemory.resetPeak(), "needs /proc/self/clear_refs (Linux)")
        let before = try #require(ResidentMemory.residentAndPeak())
        let played = try await Self.play()
        let after = try #require(ResidentMemory.residentAndPeak())
        let growth = after.peak - before.resident
        print("300-frame 800×600 GIF (\(Self.gif.count >> 10) KB) streamed: \(played.shown) frames shown, "
              + "\(played.decoded) decoded; peak \(growth >> 20) MB above idle")
        #expect(played.frames == 300)
        #expect(played.shown > 300, "a loop and a bit: every frame was due and decoded in time (the clock waits for decodes)")
        #expect(played.decoded <= played.shown + AnimationFrameBuffer.defaultCapacity, "each frame decoded once")
        #expect(growth < Self.bound, "peak grew by \(growth >> 20) MB")
    }

    /// Every frame once, in a seeded random order: the saved canvases (every 16 frames) and the
    /// spliced GIF a seek opens stay within the same bound.
    @Test func a300FrameGIFReadInRandomOrderStaysUnder32MBAboveIdle() async throws {
        _ = try await Self.play()
        let source = try #require(try StreamedFixtures.decode(Self.gif, .frameSource).animation?.frameSource)
        var order = Array(0..<300), state: UInt64 = 38
        for position in order.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            order.swapAt(position, Int(state >> 33) % 300)
        }
        _ = ResidentMemory.settledPrivateBytes()
        try #require(ResidentMemory.resetPeak(), "needs /proc/self/clear_refs (Linux)")
        let before = try #require(ResidentMemory.residentAndPeak())
        let buffer = source.makeBuffer(capacity: 1)
        let (_, decoded) = try await StreamedFixtures.countingFrames {
            for index in order { _ = try await buffer.frame(at: index) }
        }
        let after = try #require(ResidentMemory.residentAndPeak())
        let growth = after.peak - before.resident
        let saved = buffer.checkpointState
        print("300-frame 800×600 GIF read in random order: \(decoded) frames decoded; \(saved.indices.count) canvases saved "
              + "(\(saved.byteCount >> 10) KB); peak \(growth >> 20) MB above idle")
        #expect(decoded < 300 + 300 * 17, "at most a run of 16 and the canvas a read, beyond the frames passed once")
        #expect(growth < Self.bound, "peak grew by \(growth >> 20) MB")
    }
}
#endif
