import Foundation
import Testing
@testable import ShashinCore

/// An animation whose frames depend on every frame before them, as a GIF's composed canvas does:
/// the canvas is a number, each frame folds its index into it, and a frame's pixel is the canvas
/// after it. Its readers save the canvas where `AnimationCheckpoints` wants it and start from a
/// saved one when that is cheaper, like ShashinVips' GIF and APNG readers; every frame composed
/// is logged, so the tests count the decoding work of each read.
final class ComposedFrames: AnimationFrameDecoding {
    let composed = Locked<[Int]>([])
    /// The bytes each saved canvas claims to hold.
    let checkpointBytes: Int

    init(checkpointBytes: Int = 100) { self.checkpointBytes = checkpointBytes }

    func makeReader() throws -> any AnimationFrameReading { Reader(owner: self) }

    /// The canvas after frame `index`, composed from the first.
    static func canvas(after index: Int) -> Int { (0...index).reduce(0) { compose($0, $1) } }

    static func compose(_ canvas: Int, _ index: Int) -> Int { (canvas * 31 + index + 7) % 65_521 }

    static func source(frames: Int, checkpointBytes: Int = 100) -> (AnimationFrameSource, ComposedFrames) {
        let decoder = ComposedFrames(checkpointBytes: checkpointBytes)
        return (AnimationFrameSource(durations: Array(repeating: 0.1, count: frames), loopCount: 0, decoder: decoder), decoder)
    }

    final class Reader: AnimationFrameCheckpointing {
        let owner: ComposedFrames
        private var canvas = 0, next = 0

        init(owner: ComposedFrames) { self.owner = owner }

        func frame(at index: Int) throws -> Bitmap { read(index, checkpoints: nil) }

        func frame(at index: Int, checkpoints: AnimationCheckpoints) throws -> Bitmap { read(index, checkpoints: checkpoints) }

        private func read(_ index: Int, checkpoints: AnimationCheckpoints?) -> Bitmap {
            if let saved = checkpoints?.start(for: index, next: next), let state = saved.state as? Int {
                (canvas, next) = (state, saved.index + 1)
            } else if index < next {
                (canvas, next) = (0, 0)
            }
            while next <= index {
                canvas = ComposedFrames.compose(canvas, next)
                owner.composed.withLock { $0.append(next) }
                if let checkpoints, checkpoints.wants(after: next) {
                    checkpoints.keep(canvas, after: next, byteCount: owner.checkpointBytes)
                }
                next += 1
            }
            return Bitmap(width: 1, height: 1, pixels: [UInt8(canvas & 0xFF), UInt8(canvas >> 8), 0, 255])
        }
    }
}

/// Random access to a streamed animation: once a playback has sought back, a read of a frame
/// passed since (going back, or jumping ahead) composes at most the checkpoints' interval in
/// frames, counted frame by frame, not timed; the saved canvases stay within their byte budget;
/// and a playback that never seeks saves none.
@Suite struct AnimationCheckpointTests {
    /// The composed value of `frame`, as two bytes.
    static func value(_ frame: Bitmap) -> Int { Int(frame.pixels[0]) | Int(frame.pixels[1]) << 8 }

    /// Indices drawn from a seeded generator.
    static func seeded(_ count: Int, below bound: Int, seed: UInt64) -> [Int] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % bound
        }
    }

    /// Reads every index of `order` and gives how many frames each read composed.
    static func composedPerRead(_ buffer: AnimationFrameBuffer, _ decoder: ComposedFrames, _ order: [Int]) async throws -> [Int] {
        var counts: [Int] = []
        for index in order {
            let before = decoder.composed.current.count
            let frame = try await buffer.frame(at: index)
            #expect(value(frame) == ComposedFrames.canvas(after: index), "frame \(index)")
            counts.append(decoder.composed.current.count - before)
        }
        return counts
    }

    @Test func aSeekToAFramePassedBeforeComposesAtMostTheInterval() async throws {
        let (source, decoder) = ComposedFrames.source(frames: 300)
        let buffer = AnimationFrameBuffer(source: source, capacity: 1, checkpoints: AnimationCheckpoints(interval: 16))
        let firstPass = try await Self.composedPerRead(buffer, decoder, Array(0..<300) + [0])
        #expect(firstPass.allSatisfy { $0 == 1 }, "playing in order composes each frame once, and a new loop starts over")
        #expect(buffer.checkpointState.indices.isEmpty, "a playback that never seeks saves nothing")
        // The first seek back starts over (frames 0 and 1) and starts the saving.
        #expect(try await Self.composedPerRead(buffer, decoder, [2, 1]) == [2, 2])
        let secondPass = try await Self.composedPerRead(buffer, decoder, Array(2..<300))
        #expect(secondPass.allSatisfy { $0 == 1 })
        #expect(buffer.checkpointState.indices == Array(stride(from: 15, to: 300, by: 16)))
        let seeks = Self.seeded(400, below: 300, seed: 38)
        let counts = try await Self.composedPerRead(buffer, decoder, seeks)
        #expect(counts.max() ?? 0 <= 16, "a seek composed \(counts.max() ?? 0) frames")
        #expect(counts.contains(16), "a seek to the last frame of a run of 16 composes the whole run")
    }

    @Test func aRandomOrderReadComposesEachFrameOnceThenAtMostTheIntervalPerRead() async throws {
        let (source, decoder) = ComposedFrames.source(frames: 300)
        let buffer = AnimationFrameBuffer(source: source, capacity: 1, checkpoints: AnimationCheckpoints(interval: 16))
        var order = Array(0..<300)
        for (position, swap) in Self.seeded(300, below: 300, seed: 7).enumerated() { order.swapAt(position, swap) }
        // A seek back (frame 2, then 1) starts the saving.
        _ = try await Self.composedPerRead(buffer, decoder, [2, 1])
        let counts = try await Self.composedPerRead(buffer, decoder, order)
        // A read composes from the nearest saved canvas or from where the reader is: beyond the
        // frames passed so far, the frames up to it are composed once each.
        var passed = 1
        for (index, count) in zip(order, counts) {
            #expect(count <= 16 || index > passed, "frame \(index) composed \(count) frames after frames up to \(passed) were passed")
            passed = max(passed, index)
        }
        let total = counts.reduce(0, +)
        #expect(total < 300 + 300 * 16, "\(total) frames composed for 300 read in random order")
        #expect(total < 300 * 150 / 5, "without checkpoints the reads would compose about 150 frames each: \(total)")
    }

    @Test func theSavedCanvasesStayWithinTheirBudgetByWideningTheInterval() async throws {
        // 100 bytes a canvas within 500: 18 canvases every 16 frames would take 1,800 bytes.
        let (source, decoder) = ComposedFrames.source(frames: 300, checkpointBytes: 100)
        let buffer = AnimationFrameBuffer(source: source, capacity: 1, checkpoints: AnimationCheckpoints(interval: 16, byteBudget: 500))
        _ = try await Self.composedPerRead(buffer, decoder, [2, 1] + Array(2..<300))
        let state = buffer.checkpointState
        #expect(state.interval == 64 && state.indices == [63, 127, 191, 255] && state.byteCount == 400)
        let counts = try await Self.composedPerRead(buffer, decoder, Self.seeded(200, below: 300, seed: 3))
        #expect(counts.max() ?? 0 <= 64)
    }

    @Test func readersWithoutCheckpointsStartOverAsBefore() async throws {
        let (source, decoder) = LoggedFrames.source(frames: 10)
        let buffer = source.makeBuffer(capacity: 1)
        _ = try await buffer.frame(at: 7)
        _ = try await buffer.frame(at: 2)
        #expect(decoder.log.current == [7, 2])
        #expect(buffer.checkpointState.indices.isEmpty)
    }

    @Test func whereAReaderStarts() {
        let checkpoints = AnimationCheckpoints(interval: 4)
        #expect(!checkpoints.wants(after: 3) && checkpoints.start(for: 5, next: 2) == nil && checkpoints.start(for: 0, next: 2) == nil)
        #expect(!checkpoints.isSaving, "nothing is saved before a seek back to a frame after the first")
        #expect(checkpoints.start(for: 1, next: 2) == nil)
        #expect(checkpoints.isSaving && checkpoints.wants(after: 3))
        checkpoints.keep("after 3", after: 3, byteCount: 1)
        checkpoints.keep("after 7", after: 7, byteCount: 1)
        checkpoints.keep("after 5", after: 5, byteCount: 1)
        #expect(checkpoints.indices == [3, 7], "only the last frame of each run of 4 is kept")
        #expect(checkpoints.start(for: 9, next: 9) == nil, "going on from the next frame")
        #expect(checkpoints.start(for: 9, next: 8) == nil, "going on composes 2, the checkpoint after 7 also 2")
        #expect(checkpoints.start(for: 9, next: 5)?.index == 7, "a jump ahead past a checkpoint")
        #expect(checkpoints.start(for: 6, next: 9)?.index == 3, "going back")
        #expect(checkpoints.start(for: 2, next: 9) == nil, "no checkpoint before frame 2: start over")
        #expect(checkpoints.start(for: 4, next: 0)?.index == 3)
        #expect(checkpoints.wants(after: 11) && !checkpoints.wants(after: 7) && !checkpoints.wants(after: 10))
    }
}
