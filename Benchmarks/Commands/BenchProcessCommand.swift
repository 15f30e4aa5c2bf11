import ArgumentParser
import Foundation
import ImageServer
import Shashin
import ShashinToolSupport

/// `shashin-bench process --op resize|rounded|blur`: runs one built-in processor over and over on
/// the ImageServer's deterministic 1024×1024 RGBA picture (`ImageSpec(format: .png, width: 1024,
/// height: 1024, seed: 1).makeBitmap()`, the pixels `shashin generate --format png --width 1024
/// --height 1024 --seed 1` writes losslessly) and prints the median time per run as one JSON line.
/// Used by `scripts/bench-process-vs-pillow.sh`; build it in release mode for meaningful numbers.
struct BenchProcessCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "process",
        abstract: "Measure one image processor on a 1024×1024 image; prints one JSON line of ms per run."
    )

    enum Operation: String, ExpressibleByArgument, CaseIterable {
        case resize, rounded, blur
    }

    @Option(help: "The processor: resize (to 256×256), rounded (corners) or blur (Gaussian).")
    var op: Operation

    @Option(help: "Timed runs; the median is printed.")
    var iterations = 20

    @Option(help: "Corner radius (rounded, default 64) or standard deviation (blur, default 4), in pixels.")
    var radius: Double?

    @Option(help: "Side of the square input image, in pixels.")
    var size = 1024

    @Option(help: "Seed of the input picture.")
    var seed: UInt64 = 1

    func validate() throws {
        guard iterations >= 1 else { throw ValidationError("Needs at least one iteration.") }
        guard (1...ImageSpec.maxSide).contains(size), size * size <= ImageSpec.maxPixelCount else {
            throw ValidationError("Sizes go up to \(ImageSpec.maxSide) px a side and \(ImageSpec.maxPixelCount) pixels.")
        }
    }

    func run() throws {
        let bitmap = ImageSpec(format: .png, width: size, height: size, seed: seed).makeBitmap()
        let input = bitmap.platformImage
        let processor: any ImageProcessing = switch op {
        case .resize: ImageProcessors.Resize(width: 256, height: 256)
        case .rounded: ImageProcessors.RoundedCorners(radius: radius ?? 64)
        case .blur: ImageProcessors.GaussianBlur(radius: radius ?? 4)
        }

        // One run first: libvips' start-up and the first-touch page faults are not what this measures.
        let output = try processor.process(input)

        let clock = ContinuousClock()
        var milliseconds: [Double] = []
        milliseconds.reserveCapacity(iterations)
        for _ in 0..<iterations {
            var result: PlatformImage?
            let elapsed = try clock.measure { result = try processor.process(input) }
            withExtendedLifetime(result) {}
            milliseconds.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
        }
        milliseconds.sort()
        let median = iterations % 2 == 1 ? milliseconds[iterations / 2]
            : (milliseconds[iterations / 2 - 1] + milliseconds[iterations / 2]) / 2

        try printJSONLine(Report(
            op: op.rawValue,
            processor: processor.identifier,
            iterations: iterations,
            medianMilliseconds: rounded(median, 3),
            minMilliseconds: rounded(milliseconds[0], 3),
            maxMilliseconds: rounded(milliseconds[iterations - 1], 3),
            input: "\(bitmap.width)x\(bitmap.height)",
            inputByteSum: bitmap.pixels.reduce(0) { $0 + Int($1) },
            output: "\(output.pixelWidth)x\(output.pixelHeight)"
        ))
    }

    /// The JSON line `scripts/bench-process-vs-pillow.sh` reads.
    struct Report: Encodable {
        var tool = "shashin"
        var op: String
        var processor: String
        var iterations: Int
        var medianMilliseconds: Double
        var minMilliseconds: Double
        var maxMilliseconds: Double
        /// The input's size, "<width>x<height>".
        var input: String
        /// The sum of the input's bytes, which the script compares with Pillow's input.
        var inputByteSum: Int
        var output: String

        enum CodingKeys: String, CodingKey {
            case tool, op, processor, iterations, input, output
            case medianMilliseconds = "median_ms"
            case minMilliseconds = "min_ms"
            case maxMilliseconds = "max_ms"
            case inputByteSum = "input_byte_sum"
        }
    }
}
