import ArgumentParser
import Foundation
import ImageServer
import Shashin

/// `shashin generate`: writes one of the ImageServer's deterministic test images to a file, so
/// scripts (such as the Pillow comparison) can work on exactly the bytes the server serves.
struct GenerateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write a generated test image (the ImageServer's /gen/ picture) to a file."
    )

    @Option(help: "jpeg, png, webp or gif.")
    var format = "jpeg"

    @Option(help: "Width in pixels.")
    var width = 4000

    @Option(help: "Height in pixels.")
    var height = 3000

    @Option(help: "Seed of the picture.")
    var seed: UInt64 = 1

    @Option(name: .shortAndLong, help: "The file to write.")
    var output: String

    func run() async throws {
        let format: ImageFormat = switch format.lowercased() {
        case "jpeg", "jpg": .jpeg
        case "png": .png
        case "webp": .webp
        case "gif": .gif
        default: throw ValidationError("Unknown format \(format): use jpeg, png, webp or gif.")
        }
        guard (1...ImageSpec.maxSide).contains(width), (1...ImageSpec.maxSide).contains(height),
              width * height <= ImageSpec.maxPixelCount else {
            throw ValidationError("Sizes go up to \(ImageSpec.maxSide) px a side and \(ImageSpec.maxPixelCount) pixels.")
        }
        let spec = ImageSpec(format: format, width: width, height: height, seed: seed)
        let data = try await ImageGenerator.shared.data(for: spec)
        try data.write(to: URL(fileURLWithPath: output))
        print("wrote \(output) (\(spec.path.dropFirst(5)), \(data.count) bytes)")
    }
}
