import ArgumentParser
import Foundation
import ImageServer
import Shashin
import ShashinToolSupport

/// `shashin-dev gallery`: an embedded ImageServer with a generated gallery (and a few scripted faulty
/// URLs), loaded through the pipeline as thumbnails, twice: from the network, then from memory.
struct GalleryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gallery",
        abstract: "Serve a generated gallery on loopback and load it through the pipeline as thumbnails."
    )

    @Option(help: "Images in the gallery.")
    var count = 300

    @OptionGroup var thumbnail: ThumbnailSizeOption

    @OptionGroup var downloads: DownloadsOption

    @Option(help: "Seed of the generated gallery.")
    var seed: UInt64 = 1

    @Flag(help: "Leave out the few scripted faulty URLs (404, HTML, truncated body, dropped connection).")
    var noFaults = false

    @OptionGroup var output: JSONOutputOption

    func run() async throws {
        let server = ImageServer()
        try await server.start()
        let gallery = Gallery(count: count, seed: seed)
        let progressEnabled = true

        let generateStart = Date()
        note("Generating \(gallery.count) images (JPEG, PNG, WebP, GIF; up to 4000×3000)…")
        try await gallery.pregenerate(using: server.generator)
        let generateSeconds = Date().timeIntervalSince(generateStart)
        let galleryBytes = try await gallery.images.asyncReduce(0) { total, spec in
            total + (try await server.generator.data(for: spec)).count
        }

        var urls = gallery.urls(on: server).map { (url: $0, expectedToFail: false) }
        if !noFaults { urls += GalleryFaults.install(on: server).map { (url: $0, expectedToFail: true) } }
        server.resetCounters()

        var configuration = ImagePipeline.Configuration()
        configuration.maxConcurrentDownloads = downloads.maxConcurrentDownloads
        let pipeline = ImagePipeline(configuration: configuration)
        let thumbnail = self.thumbnail.options

        var passes: [GalleryReport.Pass] = []
        for name in ["first pass (cold)", "second pass (warm)"] {
            let progress = ProgressLine(label: name, total: urls.count, enabled: progressEnabled)
            passes.append(await load(urls, pipeline: pipeline, thumbnail: thumbnail, name: name, progress: progress))
            progress.finish()
        }

        let report = GalleryReport(
            server: server.baseURL.absoluteString, galleryImages: gallery.count, galleryBytes: galleryBytes,
            generateSeconds: generateSeconds, thumbnailMaxPixelSize: self.thumbnail.maxPixelSize,
            maxConcurrentDownloads: downloads.maxConcurrentDownloads, bytesDownloaded: server.bytesSent,
            requestsServed: server.totalRequests, maxDownloadsInFlight: server.maxInFlight,
            passes: passes, activeTasksAfter: pipeline.activeTaskCount
        )
        await server.stop()
        print(output.json ? report.json : report.text)
        let unexpected = passes.flatMap(\.failures).filter { !$0.expected }
        if !unexpected.isEmpty { throw ExitCode(1) }
    }

    /// Loads every URL at once (the pipeline bounds the work) and tallies where images came from.
    private func load(_ urls: [(url: URL, expectedToFail: Bool)], pipeline: ImagePipeline, thumbnail: ThumbnailOptions?,
                      name: String, progress: ProgressLine) async -> GalleryReport.Pass {
        let start = Date()
        let outcomes = await withTaskGroup(of: (URL, Bool, Result<String, any Error>).self) { group in
            for (url, expectedToFail) in urls {
                group.addTask {
                    let request = ImageRequest(url: url, thumbnail: thumbnail)
                    let result: Result<String, any Error>
                    switch pipeline.loadImage(request) {
                    case .cached(let response): result = .success(response.loadedFrom)
                    case .inProgress(let task): result = await Result { try await task.response.loadedFrom }
                    }
                    progress.advance(failed: (try? result.get()) == nil)
                    return (url, expectedToFail, result)
                }
            }
            var outcomes: [(URL, Bool, Result<String, any Error>)] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        let seconds = Date().timeIntervalSince(start)
        var sources: [String: Int] = [:]
        var failures: [GalleryReport.Failure] = []
        for (url, expected, result) in outcomes {
            switch result {
            case .success(let source): sources[source, default: 0] += 1
            case .failure(let error):
                failures.append(.init(url: url.path, reason: String(describing: error), expected: expected))
            }
        }
        failures.sort { $0.url < $1.url }
        let loaded = outcomes.count - failures.count
        return GalleryReport.Pass(name: name, images: outcomes.count, loaded: loaded, seconds: seconds,
                               imagesPerSecond: seconds > 0 ? Double(loaded) / seconds : 0,
                               sources: sources, failures: failures)
    }

    private func note(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

extension Sequence {
    func asyncReduce<Result>(_ initial: Result, _ next: (Result, Element) async throws -> Result) async rethrows -> Result {
        var result = initial
        for element in self { result = try await next(result, element) }
        return result
    }
}
