import ArgumentParser
import Foundation
import ImageServer
import Shashin
import ShashinCore
import ShashinToolSupport

/// `shashin-bench animation --delivery streamed|whole|first`: decodes a generated animated GIF
/// (300 frames of 800×600 by default, `AnimatedGIFWriter.movingSquare`) with the platform's
/// decoder and reads every frame after the first once, then prints one JSON line: the process's
/// peak resident memory above idle while it did, the time to the first frame, and the time per
/// frame read. One delivery per process, so one peak never hides in another's. Linux
/// (`/proc/self/status`).
///
/// `--order random` reads the frames in a seeded random order rather than in order (what a seek
/// costs: from the canvases saved every 16 frames, or from the first frame with
/// `--checkpoints off`). `--reads blocking` reads each frame as players did before issue 38, a
/// decode on the calling thread inside `Task.detached`, which holds a cooperative-pool thread
/// for the whole decode; `async` (the default) awaits the buffer's decode queue; `direct` decodes
/// on the reading task's own thread, blocking it, as a caller that owns its thread would. `--readers`
/// plays that many buffers of the one source at once. While the frames are read, a task sleeping
/// 1 ms at a time notes the longest it went without running: how long other async work of the
/// process was stalled.
///
///     shashin-bench animation --delivery streamed --thumbnail 0
///     shashin-bench animation --delivery whole --thumbnail 0
///     shashin-bench animation --thumbnail 0 --buffer 1 --order random [--checkpoints off]
///     shashin-bench animation --thumbnail 0 --readers 2 --reads blocking
struct BenchAnimationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "animation",
        abstract: "Measure peak resident memory and time per frame of a long animated GIF, streamed or decoded whole; prints one JSON line."
    )

    enum Delivery: String, ExpressibleByArgument, CaseIterable {
        case streamed, whole, first
        var animationDelivery: AnimationDelivery {
            switch self {
            case .streamed: .frameSource
            case .whole: .allFrames
            case .first: .firstFrameOnly
            }
        }
    }

    @Option(help: "How the animation is delivered: streamed (a frame source), whole (every frame up front), first (first frame only).")
    var delivery: Delivery = .streamed

    @Option(help: "Frames in the GIF.")
    var frames = 300

    @Option(help: "The canvas width.")
    var width = 800

    @Option(help: "The canvas height.")
    var height = 600

    @Option(help: "Frames a streamed playback decodes ahead.")
    var buffer = AnimationFrameBuffer.defaultCapacity

    enum Order: String, ExpressibleByArgument, CaseIterable { case sequential, random }

    @Option(help: "The order frames are read in: sequential (1, 2, …) or random (a seeded permutation of the same frames).")
    var order: Order = .sequential

    @Option(help: "The random order's seed.")
    var seed: UInt64 = 38

    enum Reads: String, ExpressibleByArgument, CaseIterable { case async, blocking, direct }

    @Option(help: "How a frame is read: async (awaiting the buffer's decode queue), blocking (a decode inside Task.detached, as before issue 38) or direct (a decode on the reading task's thread).")
    var reads: Reads = .async

    @Option(help: "Buffers of the one source read at once, each in the order.")
    var readers = 1

    enum Checkpoints: String, ExpressibleByArgument, CaseIterable { case on, off }

    @Option(help: "Whether a streamed reader saves its canvas every 16 frames (off: a seek back starts from the first frame).")
    var checkpoints: Checkpoints = .on

    @OptionGroup var thumbnail: ThumbnailSizeOption

    func validate() throws {
        guard readers >= 1, buffer >= 1, frames >= 2 else { throw ValidationError("--readers, --buffer must be at least 1, --frames at least 2") }
    }

    func run() async throws {
        let gif = AnimatedGIFWriter.movingSquare(width: width, height: height, frames: frames)
        let decoder = ImagePipeline.Configuration().decoders
        // Budgets wide enough for the whole decode (300 frames of 800×600 pass the default
        // 100 MP across all frames): the comparison is of what each delivery holds.
        let context = ImageDecodingContext(format: .gif, thumbnail: thumbnail.options, maxPixelCount: 1 << 40,
                                           memoryBudget: DecodeMemoryBudget(bytes: 8 << 30), maxAnimationByteCount: 8 << 30,
                                           animationDelivery: delivery.animationDelivery)
        // Warm-up: the decoder started, its libraries loaded.
        _ = try decoder.decode(AnimatedGIFWriter.movingSquare(width: 16, height: 16, frames: 3), context: context)
        _ = ResidentMemory.settledPrivateBytes()
        guard let idle = ResidentMemory.now()?.resident else { throw ValidationError("Cannot read /proc/self/status (Linux only).") }
        guard ResidentMemory.resetPeak() else { throw ValidationError("Cannot reset the peak: /proc/self/clear_refs is not writable.") }
        let clock = ContinuousClock()
        let start = clock.now
        let image = try decoder.decode(gif, context: context)
        let firstFrame = clock.now - start
        var played = 0
        var saved: (indices: [Int], byteCount: Int, interval: Int)?
        let ticker = Ticker()
        let playStart = clock.now
        if let source = image.animation?.playableFrames {
            let indices = readOrder(source.frameCount)
            let buffers = (0..<readers).map { _ in
                AnimationFrameBuffer(source: source, capacity: buffer,
                                     checkpoints: checkpoints == .on ? AnimationCheckpoints() : AnimationCheckpoints(interval: .max))
            }
            let reads = reads
            try await withThrowingTaskGroup(of: Void.self) { group in
                for playback in buffers {
                    group.addTask {
                        for index in indices {
                            switch reads {
                            case .async: _ = try await playback.frame(at: index)
                            case .blocking: _ = try await Task.detached { try playback.frameBlocking(at: index) }.value
                            case .direct: _ = try playback.frameBlocking(at: index)
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            played = indices.count * readers
            saved = buffers[0].checkpointState
        }
        let playing = clock.now - playStart
        let stall = await ticker.stop()
        guard let after = ResidentMemory.now() else { throw ValidationError("Cannot read /proc/self/status.") }
        try printJSONLine(Report(
            delivery: delivery.rawValue, frames: frames, canvas: "\(width)x\(height)", output: "\(image.pixelWidth)x\(image.pixelHeight)",
            order: order.rawValue, reads: reads.rawValue, readers: readers, buffer: buffer, checkpoints: checkpoints.rawValue,
            gifMB: megabytes(gif.count), idleResidentMB: megabytes(idle), peakAboveIdleMB: megabytes(after.peak - idle),
            firstFrameMS: rounded(Self.seconds(firstFrame) * 1000, 1), framesPlayed: played,
            msPerPlayedFrame: played == 0 ? 0 : rounded(Self.seconds(playing) * 1000 / Double(played), 2),
            readingMS: rounded(Self.seconds(playing) * 1000, 1),
            checkpointInterval: saved.map { $0.interval == .max ? 0 : $0.interval } ?? 0,
            checkpointsKept: saved?.indices.count ?? 0, checkpointKB: rounded(Double(saved?.byteCount ?? 0) / 1024, 1),
            longestStallMS: rounded(Self.seconds(stall.longest) * 1000, 1), tickerWakes: stall.wakes,
            memoryCacheCostMB: megabytes(image.pixelWidth * image.pixelHeight * 4
                                              + (image.animation.map { $0.extraFrameByteCount + $0.data.count } ?? 0))))
    }

    /// The frames after the first (which the decode gave), in the order asked for.
    func readOrder(_ frameCount: Int) -> [Int] {
        var indices = Array(1..<frameCount)
        guard order == .random else { return indices }
        var state = seed
        for position in indices.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            indices.swapAt(position, position + Int(state >> 33) % (indices.count - position))
        }
        return indices
    }

    /// A task that sleeps 1 ms at a time until stopped, noting the longest time between two of its
    /// wake-ups: how long the cooperative pool left it without a thread.
    struct Ticker {
        private let task: Task<(longest: Duration, wakes: Int), Never>

        init() {
            task = Task {
                let clock = ContinuousClock()
                var last = clock.now, longest = Duration.zero, wakes = 0
                while !Task.isCancelled {
                    try? await Task.sleep(nanoseconds: 1_000_000)
                    let now = clock.now
                    longest = max(longest, now - last)
                    last = now
                    wakes += 1
                }
                return (longest, wakes)
            }
        }

        func stop() async -> (longest: Duration, wakes: Int) {
            task.cancel()
            return await task.value
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    struct Report: Encodable {
        var delivery: String
        var frames: Int
        var canvas: String
        var output: String
        var order: String
        var reads: String
        var readers: Int
        var buffer: Int
        var checkpoints: String
        var gifMB: Double
        var idleResidentMB: Double
        var peakAboveIdleMB: Double
        var firstFrameMS: Double
        var framesPlayed: Int
        var msPerPlayedFrame: Double
        var readingMS: Double
        var checkpointInterval: Int
        var checkpointsKept: Int
        var checkpointKB: Double
        var longestStallMS: Double
        var tickerWakes: Int
        var memoryCacheCostMB: Double

        enum CodingKeys: String, CodingKey {
            case delivery, frames, canvas, output, order, reads, readers, buffer, checkpoints
            case gifMB = "gif_mb"
            case idleResidentMB = "idle_resident_mb"
            case peakAboveIdleMB = "peak_above_idle_mb"
            case firstFrameMS = "first_frame_ms"
            case framesPlayed = "frames_played"
            case msPerPlayedFrame = "ms_per_played_frame"
            case readingMS = "reading_ms"
            case checkpointInterval = "checkpoint_interval"
            case checkpointsKept = "checkpoints_kept"
            case checkpointKB = "checkpoint_kb"
            case longestStallMS = "longest_stall_ms"
            case tickerWakes = "ticker_wakes"
            case memoryCacheCostMB = "memory_cache_cost_mb"
        }
    }
}
