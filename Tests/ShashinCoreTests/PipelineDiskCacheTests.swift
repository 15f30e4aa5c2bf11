import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import ShashinCore

/// The pipeline's use of its disk cache when the disk misbehaves: images keep loading and the
/// tasks say what went wrong.
@Suite("Pipeline with a failing disk cache")
struct PipelineDiskCacheTests {
    func pipeline(_ storage: InMemoryDataCache, loader: ScriptedHTTPLoader) -> ImagePipeline {
        PipelineFixture { configuration in
            configuration.dataLoader = loader
            configuration.diskCache = storage
        }.pipeline
    }

    static let loader = ScriptedHTTPLoader { _ in
        .init(headers: ["Cache-Control": "max-age=600"], body: TestImages.encode(width: 2, height: 2, fill: 4))
    }

    @Test("a disk that cannot write: the image loads and the task reports diskCacheFailed")
    func failingWrites() async throws {
        let storage = InMemoryDataCache()
        storage.failsWrites = true
        let task = pipeline(storage, loader: Self.loader).imageTask(with: ImageRequest(url: PipelineFixture.url("w")))
        var failures: [any Error] = []
        var loaded = false
        for await event in task.events {
            switch event {
            case .diskCacheFailed(let error): failures.append(error)
            case .finished(.success(let response)): loaded = response.cacheType == .none
            default: break
            }
        }
        #expect(loaded && failures.count == 1)
        #expect(failures.first as? InMemoryDataCache.Failure == InMemoryDataCache.Failure(operation: "write"))
    }

    @Test("a disk that cannot read: the network answers, the error is reported")
    func failingReads() async throws {
        let storage = InMemoryDataCache()
        let loader = ScriptedHTTPLoader { _ in .init(headers: ["Cache-Control": "max-age=600"], body: TestImages.encode(width: 2, height: 2, fill: 4)) }
        _ = try await pipeline(storage, loader: loader).image(for: PipelineFixture.url("r"))
        storage.failsReads = true
        let response = try await pipeline(storage, loader: loader).response(for: ImageRequest(url: PipelineFixture.url("r")))
        #expect(response.cacheType == .none)
        #expect(loader.requests.count == 2)
    }

    @Test("a stored 404 is an httpStatus error, never decoded")
    func storedErrorStatus() async throws {
        let storage = InMemoryDataCache()
        let loader = ScriptedHTTPLoader { _ in .init(status: 404, headers: ["Cache-Control": "max-age=600"], body: Data("missing".utf8)) }
        for _ in 0..<2 {
            await #expect(throws: ImagePipelineError.httpStatus(404)) {
                try await pipeline(storage, loader: loader).image(for: PipelineFixture.url("missing"))
            }
        }
        #expect(loader.requests.count == 1) // the second answer came from the disk cache
    }

    @Test("the reload policies skip the memory cache; a URLRequest's cachePolicy is the request's")
    func reloadSkipsMemory() async throws {
        let storage = InMemoryDataCache()
        let loader = ScriptedHTTPLoader { _ in .init(headers: ["Cache-Control": "max-age=600"], body: TestImages.encode(width: 2, height: 2, fill: 4)) }
        let pipeline = pipeline(storage, loader: loader)
        let url = PipelineFixture.url("reload")
        _ = try await pipeline.image(for: url)
        guard case .cached = pipeline.loadImage(ImageRequest(url: url)) else { Issue.record("expected a memory hit"); return }
        let reload = try await pipeline.response(for: ImageRequest(url: url, options: .reloadIgnoringCachedData))
        #expect(reload.cacheType == .none && loader.requests.count == 2)
        var urlRequest = URLRequest(url: url)
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        #expect(ImageRequest(source: .urlRequest(urlRequest)).cachePolicy == .reloadIgnoringCacheData)
    }
}
