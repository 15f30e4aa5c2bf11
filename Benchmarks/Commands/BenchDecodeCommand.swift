import ArgumentParser
import Foundation
import Shashin
import ShashinCore
import ShashinToolSupport

/// `shashin-bench decode FILE`: decodes one file to a thumbnail over and over, on one or more
/// threads at once, and prints the throughput as one JSON line. Used by
/// `scripts/bench-decode-vs-pillow.sh` and `scripts/bench-animation-vs-pillow.sh` (an animated GIF
/// or WebP decodes every frame; `frames` says how many); build it in release mode for meaningful numbers.
struct BenchDecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Measure decoding a file to a thumbnail; prints one JSON line of images/s."
    )

    @Argument(help: "The image file to decode.")
    var file: String

    @Option(help: "Threads decoding at once.")
    var threads = 1

    @Option(help: "Images decoded in the measurement, in all (split evenly across threads).")
    var iterations = 40

    /// `--thumbnail 0` decodes at full size.
    @OptionGroup var thumbnail: ThumbnailSizeOption

    @Flag(help: "Decode at full size, then resize to the thumbnail size with the Resize processor (aspect fit), instead of downsampling while decoding.")
    var resizeAfterDecode = false

    func validate() throws {
        guard threads >= 1, iterations >= threads else {
            throw ValidationError("Needs at least one thread and at least one image per thread.")
        }
    }

    func run() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        let size = thumbnail.maxPixelSize
        let context = ImageDecodingContext(format: ImageFormat(sniffing: data), thumbnail: resizeAfterDecode ? nil : thumbnail.options)
        let decoder = Decoder(decoder: PlatformImageDecoder(), resizeTo: resizeAfterDecode && size > 0 ? size : nil)
        let perThread = iterations / threads
        let failure = Failure()

        // One image per thread first: libvips' start-up and the first-touch page faults are not
        // what this measures.
        let warmUp = try decoder.decode(data, context: context)
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            do { _ = try decoder.decode(data, context: context) } catch { failure.record(error) }
        }

        let clock = ContinuousClock()
        let elapsed = clock.measure {
            DispatchQueue.concurrentPerform(iterations: threads) { _ in
                for _ in 0..<perThread {
                    do { _ = try decoder.decode(data, context: context) } catch { failure.record(error) }
                }
            }
        }
        if let error = failure.first { throw error }

        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let images = perThread * threads
        try printJSONLine(Report(
            decoder: String(describing: PlatformImageDecoder.self),
            mode: resizeAfterDecode ? "decode, then resize" : "thumbnail while decoding",
            threads: threads,
            images: images,
            seconds: rounded(seconds, 4),
            imagesPerSecond: rounded(Double(images) / seconds, 2),
            msPerImagePerThread: rounded(seconds * 1000 / Double(perThread), 2),
            output: "\(warmUp.pixelWidth)x\(warmUp.pixelHeight)",
            frames: warmUp.animation.map { max(1, $0.frames.count) } ?? 1
        ))
    }

    /// The JSON line `scripts/bench-decode-vs-pillow.sh` and `scripts/bench-animation-vs-pillow.sh` read.
    struct Report: Encodable {
        var tool = "shashin"
        var decoder: String
        var mode: String
        var threads: Int
        var images: Int
        var seconds: Double
        var imagesPerSecond: Double
        var msPerImagePerThread: Double
        /// The output's size, "<width>x<height>".
        var output: String
        /// Frames decoded per image (1 for a still image).
        var frames: Int

        enum CodingKeys: String, CodingKey {
            case tool, decoder, mode, threads, images, seconds, output, frames
            case imagesPerSecond = "images_per_second"
            case msPerImagePerThread = "ms_per_image_per_thread"
        }
    }

    /// The decoder, followed by a resize when measuring post-decode resizing.
    private struct Decoder: Sendable {
        let decoder: PlatformImageDecoder
        let resizeTo: Int?
        func decode(_ data: Data, context: ImageDecodingContext) throws -> PlatformImage {
            let image = try decoder.decode(data, context: context)
            guard let resizeTo else { return image }
            return try ImageProcessors.Resize(width: CGFloat(resizeTo), height: CGFloat(resizeTo), unit: .pixels, contentMode: .aspectFit).process(image)
        }
    }

    /// The first error any thread met.
    private final class Failure: Sendable {
        private let error = Locked<(any Error)?>(nil)
        func record(_ error: any Error) { self.error.withLock { if $0 == nil { $0 = error } } }
        var first: (any Error)? { error.current }
    }
}
