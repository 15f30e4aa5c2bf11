import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import ShashinCore

@Suite("Nothing outlives its use")
struct ReleaseTests {
    let imageData = TestImages.encode(width: 2, height: 2, fill: 5)

    @Test func aPipelineThatLoadedImagesIsReleasedWithItsCache() async throws {
        weak var graph: JobGraph?
        weak var cache: MemoryCache?
        let data = imageData
        do {
            let fixture = PipelineFixture(loader: ControlledDataLoader { _ in .success(data) })
            graph = fixture.pipeline.graph
            cache = fixture.cache
            _ = try await fixture.pipeline.image(for: ImageRequest(url: PipelineFixture.url("a"), processors: [CountingProcessor("p")]))
            try await fixture.waitUntilIdle()
        }
        try await eventually { graph == nil && cache == nil }
    }

    @Test func aDroppedMemoryCacheReleasesItsEntries() {
        weak var node: LRUStorage.Node?
        do {
            let cache = MemoryCache(costLimit: 1 << 20)
            for name in ["a", "b", "c"] { cache.store(TestImages.makeImage(width: 1, height: 1), forKey: ImageCacheKey(url: name)) }
            node = cache.withStorage { $0.entries[ImageCacheKey(url: "b")] }
        }
        #expect(node == nil)
    }

    @Test func requestsWithDifferentHeadersDoNotShareADownload() async throws {
        let fixture = PipelineFixture()
        let url = PipelineFixture.url("private")
        func request(_ token: String) -> ImageRequest {
            var urlRequest = URLRequest(url: url)
            urlRequest.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            return ImageRequest(source: .urlRequest(urlRequest), options: .disableMemoryCacheReads)
        }
        let alice = fixture.task(request("alice"))
        let bob = fixture.task(request("bob"))
        let aliceAgain = fixture.task(request("alice"))
        try await fixture.loader.waitForPendingCount(2)
        try await fixture.loader.respond(to: url, with: imageData)
        try await fixture.loader.respond(to: url, with: imageData)
        for task in [alice, bob, aliceAgain] { _ = try await task.image }
        #expect(fixture.loader.startCount == 2)
        try await fixture.waitUntilIdle()
    }
}
