import ArgumentParser
import Foundation
import Shashin

/// `shashin fetch URL`: one image through the pipeline, with what it became and where it came from.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Load one image through the pipeline and describe it."
    )

    @Argument(help: "The image URL (http, https or file), or the path of a local file.")
    var url: String

    @Option(help: "Decode as a thumbnail whose longest side is this many pixels.")
    var thumbnail: Int?

    @Option(name: .shortAndLong, help: "Write the decoded image to this file; the extension picks the format (.jpg, .png, .webp, .gif, .heic, .avif).")
    var output: String?

    @Option(help: "Quality (0...1) for JPEG, lossy WebP, HEIC and AVIF output.")
    var quality: Double = ImageEncodingOptions.defaultQuality

    @Flag(help: "Write lossless WebP (with -o FILE.webp).")
    var lossless = false

    @Option(name: .customLong("decode-budget-mb"), help: "The decode memory budget in MB (default \(DecodeMemoryBudget.defaultBytes >> 20)).")
    var decodeBudget: Int?

    @Option(name: .customLong("cache-dir"),
            help: "Keep a disk cache in this folder: responses HTTP allows to be stored, and the first bytes of a download cut off, which the next fetch resumes.")
    var cacheDirectory: String?

    @Option(name: .customLong("cache-key"),
            help: "Name the image with this identifier in every cache key instead of its URL (for signed URLs that change): with --cache-dir, a later fetch of another URL with the same key reads this one.")
    var cacheKey: String?

    @Option(name: .customLong("low-data"),
            help: "A smaller rendition's URL, loaded instead of the image while the network is constrained (--constrained, or Low Data Mode on Apple platforms).")
    var lowData: String?

    @Flag(help: "Treat the network as constrained (a metered link): with --low-data, load that URL and never ask for the image's own.")
    var constrained = false

    @Flag(help: "Refuse loopback, private, link-local and metadata addresses, as a server loading user URLs should.")
    var refuseInternalAddresses = false

    @Option(help: "Attempts in all when a download fails for a reason that may pass (connection lost, timeout, 5xx, 408, 429), with exponential backoff and Retry-After (default 1: no retry).")
    var attempts: Int = 1

    @Option(name: .customLong("fallback"), help: "Another URL to load when the ones before it fail (repeatable; tried in order).")
    var fallbacks: [String] = []

    @OptionGroup var loader: LoaderOption

    @OptionGroup var user: UserOption

    func validate() throws {
        guard Self.resolve(url) != nil else {
            throw ValidationError("Not a URL nor an existing file: \(self.url)")
        }
        if let lowData, Self.resolve(lowData) == nil { throw ValidationError("--low-data: not a URL nor an existing file: \(lowData)") }
        guard attempts >= 1 else { throw ValidationError("--attempts must be 1 or more, not \(attempts)") }
        if let bad = fallbacks.first(where: { Self.resolve($0) == nil }) {
            throw ValidationError("--fallback: not a URL nor an existing file: \(bad)")
        }
        // Checked before loading, so a typo costs no download.
        _ = try output.map(encodingOptions(for:))
    }

    func run() async throws {
        guard let url = Self.resolve(url) else { throw ValidationError("Not a URL nor an existing file: \(self.url)") }
        let options = try output.map(encodingOptions(for:))
        var configuration = ImagePipeline.Configuration()
        if let decodeBudget { configuration.decodeMemoryBudget = DecodeMemoryBudget(bytes: decodeBudget << 20) }
        configuration.dataLoader = user.wrap(loader.make(destinationPolicy: refuseInternalAddresses ? .publicAddressesOnly : .unrestricted),
                                             for: url)
        if let cacheDirectory {
            configuration.diskCache = try DiskCache(configuration: .init(directory: URL(fileURLWithPath: cacheDirectory, isDirectory: true)))
        }
        configuration.networkConstraint = NetworkConstraint(isConstrained: constrained)
        let pipeline = ImagePipeline(configuration: configuration)
        // A local path is an explicit file source: `file:` stays out of `allowedSchemes`.
        var request = ImageRequest(source: Self.source(url), thumbnail: thumbnail.map { ThumbnailOptions(maxPixelSize: $0) })
        request.imageID = cacheKey
        request.lowDataImage = lowData.flatMap(Self.resolve).map { LowDataImage(Self.source($0)) }
        request.retryPolicy = RetryPolicy(maxAttempts: attempts)
        request.alternativeSources = fallbacks.compactMap(Self.resolve).map(Self.source)
        do {
            let response = try await pipeline.response(for: request)
            let (width, height) = Self.size(of: response.image)
            print("\(url.absoluteString): \(width)×\(height), from \(response.loadedFrom), "
                  + String(format: "%.1f ms (network %.1f, decode %.1f)", response.timings.total * 1000,
                           response.timings.network * 1000, response.timings.decode * 1000))
            if response.isLowData { print("low data: \(response.source) (the network is constrained)") }
            if response.timings.attempts > 1 { print("attempts: \(response.timings.attempts)") }
            if !response.isLowData, let used = response.source.url, used != url { print("loaded from the fallback \(used.absoluteString)") }
            if cacheKey != nil, let key = pipeline.diskCacheKey(for: request) { print("cache key: \(key)") }
            if let start = response.resumedFromByte {
                let total = (response.urlResponse?.expectedContentLength).map { " of \($0)" } ?? ""
                print("resumed from byte \(start)\(total): \(start) bytes were kept from an earlier download")
            }
            if let animation = response.animation {
                print("animated: \(animation), loop count \(animation.loopCount)"
                      + (animation.shortfall.map { " (\($0))" } ?? ""))
            }
            UserOption.report(configuration.dataLoader)
            if let output, let options {
                let data = try PlatformImageEncoder().encode(response.image, options: options)
                try data.write(to: URL(fileURLWithPath: output))
                print("wrote \(output) (\(options), \(data.count) bytes)")
            }
        } catch {
            if let kept = configuration.resumableData?.resumableData(for: url) {
                print("kept \(kept.data.count) of \(kept.totalLength) bytes"
                      + (cacheDirectory == nil ? " (in memory only: pass --cache-dir to resume in a later run)" : "; the next fetch resumes from there"))
            }
            UserOption.report(configuration.dataLoader)
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// `argument` as a URL: one with a scheme as it is, else the path of an existing file.
    /// The source of `url`: a local file's for a `file:` URL, read without allowing `file:` URLs.
    static func source(_ url: URL) -> ImageSource {
        url.isFileURL ? .file(url) : .url(url)
    }

    static func resolve(_ argument: String) -> URL? {
        if let url = URL(string: argument), url.scheme != nil { return url }
        guard FileManager.default.fileExists(atPath: argument) else { return nil }
        return URL(fileURLWithPath: argument)
    }

    private static func size(of image: PlatformImage) -> (Int, Int) {
        (image.pixelWidth, image.pixelHeight)
    }

    private func encodingOptions(for path: String) throws -> ImageEncodingOptions {
        let ext = URL(fileURLWithPath: path).pathExtension
        guard var options = ImageEncodingOptions(fileExtension: ext, quality: quality) else {
            let named = ext.isEmpty ? "'\(path)' has no extension" : "Cannot write .\(ext) files"
            throw ValidationError("\(named): use .jpg, .png, .webp, .gif, .heic or .avif.")
        }
        options.isLossless = lossless
        return options
    }
}
