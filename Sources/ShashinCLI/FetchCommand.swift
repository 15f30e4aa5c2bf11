import ArgumentParser
import Foundation
import Shashin

/// `shashin fetch URL`: one image through the pipeline, with what it became and where it came from.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Load one image through the pipeline and describe it."
    )

    @Argument(help: "The image URL (http, https or file).")
    var url: String

    @Option(help: "Decode as a thumbnail whose longest side is this many pixels.")
    var thumbnail: Int?

    @Option(name: .shortAndLong, help: "Write the decoded image to this file (.png, .jpg or .webp).")
    var output: String?

    func run() async throws {
        guard let url = URL(string: url), url.scheme != nil else {
            throw ValidationError("Not a URL: \(self.url)")
        }
        var configuration = ImagePipeline.Configuration()
        configuration.allowedSchemes.insert("file")
        let pipeline = ImagePipeline(configuration: configuration)
        let request = ImageRequest(url: url, thumbnail: thumbnail.map { ThumbnailOptions(maxPixelSize: $0) })
        do {
            let response = try await pipeline.response(for: request)
            let (width, height) = Self.size(of: response.image)
            print("\(url.absoluteString): \(width)×\(height), from \(response.source.rawValue), "
                  + String(format: "%.1f ms (network %.1f, decode %.1f)", response.timings.total * 1000,
                           response.timings.network * 1000, response.timings.decode * 1000))
            if let output { try write(response.image, to: output) }
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }

    private static func size(of image: PlatformImage) -> (Int, Int) {
        #if canImport(UIKit) || canImport(AppKit)
        return (Int(image.size.width), Int(image.size.height))
        #else
        return (image.width, image.height)
        #endif
    }

    private func write(_ image: PlatformImage, to path: String) throws {
        #if canImport(ImageIO)
        throw ValidationError("Writing files needs the encoders of the imaging issue on Apple platforms.")
        #else
        let format: ImageFormat = switch URL(fileURLWithPath: path).pathExtension.lowercased() {
        case "jpg", "jpeg": .jpeg
        case "webp": .webp
        default: .png
        }
        let data = try PlatformImageEncoder().encode(image, as: format, quality: 0.9)
        try data.write(to: URL(fileURLWithPath: path))
        print("wrote \(path) (\(format), \(data.count) bytes)")
        #endif
    }
}
