import ArgumentParser
import Foundation
import ImageServer
import Shashin
import ShashinCore
import ShashinToolSupport

/// `shashin-bench animation --delivery streamed|whole|first`: decodes a generated animated GIF
/// (300 frames of 800×600 by default, `AnimatedGIFWriter.movingSquare`) with the platform's
/// decoder and plays every frame once, then prints one JSON line: the process's peak resident
/// memory above idle while it did, the time to the first frame, and the time per played frame.
/// One delivery per process, so one peak never hides in another's. Linux (`/proc/self/status`).
///
///     shashin-bench animation --delivery streamed --thumbnail 0
///     shashin-bench animation --delivery whole --thumbnail 0
struct BenchAnimationCommand: ParsableCommand {
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

    @OptionGroup var thumbnail: ThumbnailSizeOption

    func run() throws {
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
        let playStart = clock.now
        if let source = image.animation?.playableFrames {
            let frames = source.makeBuffer(capacity: buffer)
            for index in 1..<source.frameCount {
                _ = try frames.frame(at: index)
                played += 1
            }
        }
        let playing = clock.now - playStart
        guard let after = ResidentMemory.now() else { throw ValidationError("Cannot read /proc/self/status.") }
        try printJSONLine(Report(
            delivery: delivery.rawValue, frames: frames, canvas: "\(width)x\(height)", output: "\(image.pixelWidth)x\(image.pixelHeight)",
            gifMB: megabytes(gif.count), idleResidentMB: megabytes(idle), peakAboveIdleMB: megabytes(after.peak - idle),
            firstFrameMS: rounded(Self.seconds(firstFrame) * 1000, 1), framesPlayed: played,
            msPerPlayedFrame: played == 0 ? 0 : rounded(Self.seconds(playing) * 1000 / Double(played), 2),
            memoryCacheCostMB: megabytes(image.pixelWidth * image.pixelHeight * 4
                                              + (image.animation.map { $0.extraFrameByteCount + $0.data.count } ?? 0))))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    struct Report: Encodable {
        var delivery: String
        var frames: Int
        var canvas: String
        var output: String
        var gifMB: Double
        var idleResidentMB: Double
        var peakAboveIdleMB: Double
        var firstFrameMS: Double
        var framesPlayed: Int
        var msPerPlayedFrame: Double
        var memoryCacheCostMB: Double

        enum CodingKeys: String, CodingKey {
            case delivery, frames, canvas, output
            case gifMB = "gif_mb"
            case idleResidentMB = "idle_resident_mb"
            case peakAboveIdleMB = "peak_above_idle_mb"
            case firstFrameMS = "first_frame_ms"
            case framesPlayed = "frames_played"
            case msPerPlayedFrame = "ms_per_played_frame"
            case memoryCacheCostMB = "memory_cache_cost_mb"
        }
    }
}
