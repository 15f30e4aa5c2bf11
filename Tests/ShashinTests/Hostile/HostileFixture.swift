import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageServer
import Shashin

/// A started ``HostileOrigin`` and a pipeline on one loader, with or without a disk cache.
struct HostileFixture {
    let origin: HostileOrigin
    let loader: any DataLoading
    let pipeline: ImagePipeline
    private let folder: URL?

    static let image = ImageSpec(format: .png, width: 64, height: 48, seed: 1)

    /// - Parameter allowingOwnOrigin: turn the destination policy on, with this origin's own
    ///   endpoint (127.0.0.1:PORT) allowed, so only where it redirects to is judged.
    static func start(_ factory: ConfiguredLoader, path: PipelinePath = .direct,
                      settings: LoaderSettings = LoaderSettings(), allowingOwnOrigin: Bool = false) async throws -> HostileFixture {
        let origin = try HostileOrigin(image: try await ImageGenerator.shared.data(for: image))
        var settings = settings
        if allowingOwnOrigin {
            settings.destinationPolicy = DestinationPolicy(refusesInternalAddresses: true, allowedEndpoints: ["127.0.0.1:\(origin.port)"])
        }
        let loader = factory.make(settings)
        var configuration = ImagePipeline.Configuration()
        configuration.dataLoader = loader
        configuration.memoryCache = nil
        var folder: URL?
        if path == .diskCache {
            let directory = temporaryFolder()
            configuration.diskCache = try DiskCache(configuration: .init(directory: directory))
            folder = directory
        }
        return HostileFixture(origin: origin, loader: loader, pipeline: ImagePipeline(configuration: configuration), folder: folder)
    }

    /// The pipeline's error for `behaviour`, or `nil` when the image loaded.
    func pipelineError(_ behaviour: HostileBehaviour, query: String? = nil) async -> (any Error)? {
        do {
            _ = try await pipeline.image(for: ImageRequest(url: origin.url(behaviour, query: query)))
            return nil
        } catch { return error }
    }

    /// The loader's own error for `behaviour` through `loadData`, or `nil` when it loaded.
    func loaderError(_ behaviour: HostileBehaviour, query: String? = nil) async -> (any Error)? {
        do {
            _ = try await loader.loadData(for: URLRequest(url: origin.url(behaviour, query: query)), maxBytes: 10 << 20) { _, _ in }
            return nil
        } catch { return error }
    }

    func finish() async throws {
        try await waitFor { pipeline.activeTaskCount == 0 }
        origin.stop()
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }
}
