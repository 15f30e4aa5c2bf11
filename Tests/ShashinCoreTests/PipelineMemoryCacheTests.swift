import Foundation
import Testing
@testable import ShashinCore

@Suite("Memory-cache hits")
struct PipelineMemoryCacheTests {
    let url = PipelineFixture.url("a")

    @Test func aMemoryHitIsReturnedSynchronouslyWithoutATask() async throws {
        let fixture = PipelineFixture()
        let request = ImageRequest(url: url, thumbnail: .init(maxPixelSize: 2))
        let task = fixture.task(request)
        try await fixture.loader.respond(to: url, with: TestImages.encode(width: 4, height: 2, fill: 3))
        #expect(try await task.response.cacheType == .none)
        guard case .cached(let response) = fixture.pipeline.loadImage(request) else {
            Issue.record("expected a synchronous memory hit")
            return
        }
        #expect(response.cacheType == .memory)
        #expect(response.image.pixelWidth == 2 && response.image.pixelHeight == 1)
        #expect(fixture.pipeline.cachedImage(for: request) != nil)
        #expect(fixture.pipeline.activeTaskCount == 0)
        #expect(fixture.loader.startCount == 1)
    }

    @Test func thumbnailsAndProcessorsAreCachedUnderTheirOwnKeys() async throws {
        let fixture = PipelineFixture()
        let full = ImageRequest(url: url)
        _ = fixture.task(full)
        try await fixture.loader.respond(to: url, with: TestImages.encode(width: 4, height: 2, fill: 3))
        try await fixture.waitUntilIdle()
        #expect(fixture.pipeline.cachedImage(for: full) != nil)
        #expect(fixture.pipeline.cachedImage(for: ImageRequest(url: url, thumbnail: .init(maxPixelSize: 2))) == nil)
        #expect(fixture.pipeline.cachedImage(for: ImageRequest(url: url, processors: [CountingProcessor("x")])) == nil)
    }

    @Test func disablingMemoryCacheReadsAlwaysLoads() async throws {
        let fixture = PipelineFixture()
        let data = TestImages.encode(width: 1, height: 1, fill: 3)
        for _ in 0..<2 {
            let task = fixture.task(ImageRequest(url: url, options: .disableMemoryCacheReads))
            try await fixture.loader.respond(to: url, with: data)
            #expect(try await task.response.cacheType == .none)
        }
        #expect(fixture.loader.startCount == 2)
        try await fixture.waitUntilIdle()
    }

    @Test func disablingMemoryCacheWritesStoresNothing() async throws {
        let fixture = PipelineFixture()
        let request = ImageRequest(url: url, options: .disableMemoryCacheWrites)
        let task = fixture.task(request)
        try await fixture.loader.respond(to: url, with: TestImages.encode(width: 1, height: 1, fill: 3))
        _ = try await task.image
        #expect(fixture.cache.totalCount == 0)
        try await fixture.waitUntilIdle()
    }

    @Test func anExplicitTaskOnACachedImageFinishesFromMemory() async throws {
        let fixture = PipelineFixture()
        let request = ImageRequest(url: url)
        fixture.cache.store(TestImages.makeImage(width: 1, height: 1), forKey: request.cacheKey)
        let response = try await fixture.pipeline.imageTask(with: request).response
        #expect(response.cacheType == .memory)
        #expect(fixture.loader.startCount == 0)
        try await fixture.waitUntilIdle()
    }
}
