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

    @Option(help: "jpeg, png, webp or gif; by default the output's extension (.jpg, .jpeg, .png, .webp, .gif).")
    var format: String?

    @Option(help: "Width in pixels.")
    var width = 4000

    @Option(help: "Height in pixels.")
    var height = 3000

    @Option(help: "Seed of the picture.")
    var seed: UInt64 = 1

    @Option(name: .shortAndLong, help: "The file to write.")
    var output: String

    func validate() throws {
        _ = try Self.format(named: format, output: output)
    }

    func run() async throws {
        let format = try Self.format(named: format, output: output)
        guard (1...ImageSpec.maxSide).contains(width), (1...ImageSpec.maxSide).contains(height),
              width * height <= ImageSpec.maxPixelCount else {
            throw ValidationError("Sizes go up to \(ImageSpec.maxSide) px a side and \(ImageSpec.maxPixelCount) pixels.")
        }
        let spec = ImageSpec(format: format, width: width, height: height, seed: seed)
        let data = try await ImageGenerator.shared.data(for: spec)
        try data.write(to: URL(fileURLWithPath: output))
        print("wrote \(output) (\(spec.path.dropFirst(5)), \(data.count) bytes)")
    }

    /// The format to write: `--format` when given, else the one `output`'s extension names. A
    /// `--format` that an image extension contradicts (`-o x.png --format jpeg`) is refused, so no
    /// file holds bytes its name belies; other extensions (`.tmp`) take `--format` as given.
    static func format(named name: String?, output: String) throws -> ImageFormat {
        let ext = URL(fileURLWithPath: output).pathExtension
        let implied = Self.format(forName: ext)
        guard let name else {
            guard let implied else {
                throw ValidationError("Cannot tell the format from '\(output)': name it .jpg, .png, .webp or .gif, or pass --format.")
            }
            return implied
        }
        guard let format = Self.format(forName: name) else {
            throw ValidationError("Unknown format \(name): use jpeg, png, webp or gif.")
        }
        if let implied, implied != format {
            throw ValidationError("--format \(name) does not match the extension of '\(output)'.")
        }
        return format
    }

    private static func format(forName name: String) -> ImageFormat? {
        switch name.lowercased() {
        case "jpeg", "jpg": .jpeg
        case "png": .png
        case "webp": .webp
        case "gif": .gif
        default: nil
        }
    }
}
