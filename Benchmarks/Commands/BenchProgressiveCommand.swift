import ArgumentParser
import Foundation
import ImageServer
import Shashin
import ShashinCore
import ShashinToolSupport

/// `shashin-bench progressive FILE`: loads a progressive JPEG from the embedded ImageServer at a
/// limited bandwidth, with previews on and off in alternating order, and reports the time to the
/// first preview ÷ the time to the final image, and the decoding CPU of previews and final ÷ that
/// of the final alone (measured in the run without previews), with their range over the rounds.
/// Used by `scripts/bench-progressive.sh`; build in release for meaningful numbers.
struct BenchProgressiveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "progressive",
        abstract: "Measure progressive previews: time to the first preview and their CPU cost; prints one JSON line a round."
    )

    @Argument(help: "A progressive JPEG.")
    var file: String

    @Option(help: "Bandwidth of the response, in kilobytes (1,000 bytes) per second.")
    var bandwidth = 600

    @Option(help: "Longest side of the thumbnail, in pixels.")
    var thumbnail = 300

    @Option(help: "The pipeline's progressiveDecodingInterval, in seconds.")
    var interval = 0.5

    @Option(help: "The pipeline's progressiveDecodingBudget (bytes previews decode, as a fraction of the file's).")
    var budget = ImagePipeline.Configuration(decoder: PlatformImageDecoder()).progressiveDecodingBudget

    @Option(help: "Rounds (each loads the file twice: with previews and without).")
    var rounds = 3

    func run() async throws {
        guard rounds >= 1, bandwidth >= 1, thumbnail >= 8 else { throw ValidationError("Needs a round, a bandwidth and a thumbnail of 8 px or more.") }
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        let server = ImageServer()
        try await server.start()
        var script = RouteScript.data(data, contentType: "image/jpeg")
        script.bytesPerSecond = bandwidth * 1000
        server.setRoute("/progressive.jpg", script)
        // A load each way first: libvips' start-up, the loader's connection pool and the first
        // page faults of either path are not measured.
        _ = try await load(server.url("/progressive.jpg?warm-up"), previews: false)
        _ = try await load(server.url("/progressive.jpg?warm-up-previews"), previews: true)
        for round in 0..<rounds {
            var on: Load?
            var off: Load?
            for previews in round % 2 == 0 ? [true, false] : [false, true] {
                let result = try await load(server.url("/progressive.jpg?round=\(round)&previews=\(previews)"), previews: previews)
                if previews { on = result } else { off = result }
            }
            guard let on, let off else { continue }
            try printJSONLine(Report(round: round, bytes: data.count, with: on, without: off))
        }
        await server.stop()
    }

    /// One round's JSON line: the load with previews against the load without.
    struct Report: Encodable {
        var round: Int
        var bytes: Int
        var previews: Int
        /// `nil` (null) when no preview came before the final image.
        var firstPreviewSeconds: Double?
        var finalSeconds: Double
        var finalWithoutPreviewsSeconds: Double
        var firstPreviewOverFinal: Double?
        var previewDecodeCPUSeconds: Double
        var finalDecodeCPUSeconds: Double
        var finalDecodeCPUWithoutPreviewsSeconds: Double
        /// Decoding CPU of previews and final ÷ that of the final alone, without previews.
        var decodeCPURatio: Double
        /// The whole process's CPU with previews ÷ without.
        var processCPURatio: Double

        init(round: Int, bytes: Int, with on: Load, without off: Load) {
            self.round = round
            self.bytes = bytes
            previews = on.previews
            firstPreviewSeconds = on.firstPreview.map { rounded($0, 3) }
            finalSeconds = rounded(on.final, 3)
            finalWithoutPreviewsSeconds = rounded(off.final, 3)
            firstPreviewOverFinal = on.firstPreview.map { rounded($0 / on.final, 3) }
            previewDecodeCPUSeconds = rounded(on.previewCPU, 4)
            finalDecodeCPUSeconds = rounded(on.finalCPU, 4)
            finalDecodeCPUWithoutPreviewsSeconds = rounded(off.finalCPU, 4)
            decodeCPURatio = rounded((on.previewCPU + on.finalCPU) / off.finalCPU, 3)
            processCPURatio = rounded(on.processCPU / off.processCPU, 3)
        }

        enum CodingKeys: String, CodingKey {
            case round, bytes, previews
            case firstPreviewSeconds = "first_preview_s"
            case finalSeconds = "final_s"
            case finalWithoutPreviewsSeconds = "final_without_previews_s"
            case firstPreviewOverFinal = "first_preview_over_final"
            case previewDecodeCPUSeconds = "preview_decode_cpu_s"
            case finalDecodeCPUSeconds = "final_decode_cpu_s"
            case finalDecodeCPUWithoutPreviewsSeconds = "final_decode_cpu_without_previews_s"
            case decodeCPURatio = "decode_cpu_ratio"
            case processCPURatio = "process_cpu_ratio"
        }

        /// Every key, the optional ones as null when absent.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(round, forKey: .round)
            try container.encode(bytes, forKey: .bytes)
            try container.encode(previews, forKey: .previews)
            try container.encode(firstPreviewSeconds, forKey: .firstPreviewSeconds)
            try container.encode(finalSeconds, forKey: .finalSeconds)
            try container.encode(finalWithoutPreviewsSeconds, forKey: .finalWithoutPreviewsSeconds)
            try container.encode(firstPreviewOverFinal, forKey: .firstPreviewOverFinal)
            try container.encode(previewDecodeCPUSeconds, forKey: .previewDecodeCPUSeconds)
            try container.encode(finalDecodeCPUSeconds, forKey: .finalDecodeCPUSeconds)
            try container.encode(finalDecodeCPUWithoutPreviewsSeconds, forKey: .finalDecodeCPUWithoutPreviewsSeconds)
            try container.encode(decodeCPURatio, forKey: .decodeCPURatio)
            try container.encode(processCPURatio, forKey: .processCPURatio)
        }
    }

    struct Load {
        var firstPreview: Double?
        var final: Double
        var previews: Int
        var previewCPU: Double
        var finalCPU: Double
        /// The whole process's CPU (user + system) over the load: the server and loader too.
        var processCPU: Double
    }

    private func load(_ url: URL, previews: Bool) async throws -> Load {
        let decoder = CPUTimingDecoder()
        var configuration = ImagePipeline.Configuration()
        configuration.decoder = decoder
        configuration.memoryCache = nil
        configuration.isProgressiveDecodingEnabled = previews
        configuration.progressiveDecodingInterval = interval
        configuration.progressiveDecodingBudget = budget
        let pipeline = ImagePipeline(configuration: configuration)
        let cpuBefore = Self.processCPU()
        let start = monotonicSeconds()
        guard case .inProgress(let task) = pipeline.loadImage(ImageRequest(url: url, thumbnail: .init(maxPixelSize: thumbnail))) else {
            throw ValidationError("unexpected memory hit")
        }
        var firstPreview: Double?
        var count = 0
        var final: Double?
        for await event in task.events {
            switch event {
            case .preview:
                count += 1
                if firstPreview == nil { firstPreview = monotonicSeconds() - start }
            case .finished(let result):
                _ = try result.get()
                final = monotonicSeconds() - start
            default:
                break
            }
        }
        let cpu = Self.processCPU() - cpuBefore
        return Load(firstPreview: firstPreview, final: final ?? .nan, previews: count,
                    previewCPU: decoder.previewSeconds.current, finalCPU: decoder.finalSeconds.current, processCPU: cpu)
    }

    private func monotonicSeconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    static func processCPU() -> Double { BenchNetworkCommand.usage().cpuSeconds }
}

/// The platform's decoder, adding up the CPU time of its final decodes and its previews (each
/// measured on the thread that ran it).
final class CPUTimingDecoder: ProgressiveImageDecoding {
    private let base = PlatformImageDecoder()
    let finalSeconds = Locked(0.0)
    let previewSeconds = Locked(0.0)

    func decode(_ data: Data, context: ImageDecodingContext) throws -> PlatformImage {
        let start = Self.threadCPU()
        defer { let spent = Self.threadCPU() - start; finalSeconds.withLock { $0 += spent } }
        return try base.decode(data, context: context)
    }

    func decodePreview(_ data: Data, context: ImageDecodingContext) -> PlatformImage? {
        let start = Self.threadCPU()
        defer { let spent = Self.threadCPU() - start; previewSeconds.withLock { $0 += spent } }
        return base.decodePreview(data, context: context)
    }

    /// The base decoder's session, its previews' CPU counted as previews and its final image's
    /// as the final decode.
    func makeProgressiveSession(for data: Data, context: ImageDecodingContext) -> (any ProgressiveDecodingSession)? {
        base.makeProgressiveSession(for: data, context: context).map { TimedSession(base: $0, owner: self) }
    }

    final class TimedSession: ProgressiveDecodingSession {
        let base: any ProgressiveDecodingSession
        let owner: CPUTimingDecoder

        init(base: any ProgressiveDecodingSession, owner: CPUTimingDecoder) {
            self.base = base
            self.owner = owner
        }

        func preview(_ data: Data, scanEnd: Int) -> PlatformImage? {
            let start = CPUTimingDecoder.threadCPU()
            defer { let spent = CPUTimingDecoder.threadCPU() - start; owner.previewSeconds.withLock { $0 += spent } }
            return base.preview(data, scanEnd: scanEnd)
        }

        func finish(_ data: Data) -> PlatformImage? {
            let start = CPUTimingDecoder.threadCPU()
            defer { let spent = CPUTimingDecoder.threadCPU() - start; owner.finalSeconds.withLock { $0 += spent } }
            return base.finish(data)
        }

        func close() { base.close() }
    }

    static func threadCPU() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
