import Foundation
import ImageServer
import Shashin
import Testing

@Suite("Over HTTP: built-in processors and the memory cache")
struct LiveProcessorCacheTests {
    @Test(arguments: LoaderFactory.all) func differentProcessorsMakeDifferentMemoryEntries(loader: LoaderFactory) async throws {
        let cache = MemoryCache()
        let fixture = try await LiveFixture.start(loader) { $0.memoryCache = cache }
        let url = fixture.serveImage("/processed.png", format: .png, width: 64, height: 48)
        let lists: [[any ImageProcessing]] = [
            [.resize(width: 32)], [.resize(width: 16)], [.resize(width: 32, upscale: true)], [.blur(radius: 2)], [.circle],
            [.resize(width: 32), .circle], [.composition([.resize(width: 32), .circle])],
        ]
        var images: [Bitmap] = []
        for processors in lists {
            images.append(try await fixture.pipeline.image(for: ImageRequest(url: url, processors: processors)).testBitmap)
        }
        #expect(images.map(\.width) == [32, 16, 32, 64, 48, 24, 24])
        // The decoded original, one entry per distinct identifier list (`[resize(32)]` is also
        // the first stage of `[resize(32), circle]`, so it is not made twice), and the
        // composition under its own single identifier.
        #expect(cache.totalCount == 1 + lists.count)
        for processors in lists {
            #expect(cache.image(forKey: ImageRequest(url: url, processors: processors).cacheKey) != nil)
        }
        #expect(images[5] == images[6], "a composition gives what its steps give one by one")
        #expect(fixture.server.requestCount(for: "/processed.png") == 1)
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all) func theSameProcessorsShareOneEntry(loader: LoaderFactory) async throws {
        let cache = MemoryCache()
        let fixture = try await LiveFixture.start(loader) { $0.memoryCache = cache }
        let url = fixture.serveImage("/avatar.jpg", width: 80, height: 60)
        func request() -> ImageRequest {
            ImageRequest(url: url, processors: [.resize(width: 20, height: 20, crop: true), .roundedCorners(radius: 4)])
        }
        let first = try await fixture.pipeline.image(for: request())
        #expect((first.pixelWidth, first.pixelHeight) == (20, 20))
        #expect(cache.totalCount == 3) // original, resized, rounded
        // Equal processors built anew: the same key, so a synchronous memory hit.
        guard case .cached(let response) = fixture.pipeline.loadImage(request()) else {
            Issue.record("expected a memory hit")
            return
        }
        #expect(response.cacheType == .memory)
        #expect(response.image.testBitmap == first.testBitmap)
        #expect(cache.totalCount == 3)
        #expect(fixture.server.requestCount(for: "/avatar.jpg") == 1)
        try await fixture.finish()
    }
}
