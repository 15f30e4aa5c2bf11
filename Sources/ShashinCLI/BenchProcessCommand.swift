import ArgumentParser
import Foundation
import ImageServer
import Shashin

/// `shashin bench-process --op resize|rounded|blur`: runs one built-in processor over and over on
/// the ImageServer's deterministic 1024×1024 RGBA picture (`ImageSpec(format: .png, width: 1024,
/// height: 1024, seed: 1).makeBitmap()`, the pixels `shashin generate --format png --width 1024
/// --height 1024 --seed 1` writes losslessly) and prints the median time per run as one JSON line.
/// Used by `scripts/bench-process-vs-pillow.sh`; build it in release mode for meaningful numbers.
struct BenchProcessCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-process",
        abstract: "Measure one image processor on a 1024×1024 image; prints one JSON line of ms per run.",
        shouldDisplay: false
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

        let fields: [(String, String)] = [
            ("tool", "\"shashin\""),
            ("op", "\"\(op.rawValue)\""),
            ("processor", "\"\(processor.identifier)\""),
            ("iterations", "\(iterations)"),
            ("median_ms", String(format: "%.3f", median)),
            ("min_ms", String(format: "%.3f", milliseconds[0])),
            ("max_ms", String(format: "%.3f", milliseconds[iterations - 1])),
            ("input", "\"\(bitmap.width)x\(bitmap.height)\""),
            ("input_byte_sum", "\(bitmap.pixels.reduce(0) { $0 + Int($1) })"),
            ("output", "\"\(output.pixelWidth)x\(output.pixelHeight)\""),
        ]
        print("{" + fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}")
    }
}
