import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageServer
import Shashin
import Testing

/// Prefetching by URL, into memory or onto the disk only, with a batch's progress and completion.
@Suite("Over HTTP: prefetching to disk and into memory, by the batch")
struct LivePrefetchTests {
    /// Waits for one batch of `prefetcher`: every progress report, then the completion.
    static func prefetch(_ urls: [URL], with prefetcher: ImagePrefetcher) async -> (ImagePrefetcher.Progress, [ImagePrefetcher.Progress]) {
        let reports = Locked<[ImagePrefetcher.Progress]>([])
        let result = await withCheckedContinuation { continuation in
            prefetcher.startPrefetching(with: urls) { result in
                continuation.resume(returning: result)
            } progress: { progress in
                reports.withLock { $0.append(progress) }
            }
        }
        return (result, reports.current)
    }

    @Test(arguments: LoaderFactory.all) func toDiskDownloadsTheBytesAndDecodesNothing(loader: LoaderFactory) async throws {
        let (fixture, disk) = try await LiveFixture.startOnDisk(loader) { $0.memoryCache = MemoryCache() }
        let urls = (0..<4).map { index in
            var script = RouteScript.image(ImageSpec(format: .jpeg, width: 64, height: 48, seed: UInt64(index)))
            script.headers["Cache-Control"] = "max-age=3600"
            fixture.server.setRoute("/album/\(index).jpg", script)
            return fixture.server.url("/album/\(index).jpg")
        }
        let prefetcher = ImagePrefetcher(pipeline: fixture.pipeline, destination: .diskCache)
        let (result, reports) = await Self.prefetch(urls, with: prefetcher)
        #expect(result == ImagePrefetcher.Progress(total: 4, completed: 4))
        #expect(reports.map(\.finished) == [1, 2, 3, 4] && reports.last == result)
        for url in urls {
            #expect(try fixture.pipeline.cachedData(for: ImageRequest(url: url)) != nil, "on disk")
            #expect(fixture.pipeline.cachedImage(for: ImageRequest(url: url)) == nil, "nothing decoded")
        }
        #expect(disk.count == 4)
        // Again: already on disk, nothing downloaded, the batch says so.
        let (again, _) = await Self.prefetch(urls, with: prefetcher)
        #expect(again == ImagePrefetcher.Progress(total: 4, skipped: 4))
        #expect(urls.allSatisfy { fixture.server.requestCount(for: $0.path) == 1 }, "no second download")
        try await fixture.finish()
    }

    @Test func intoMemoryCountsFailuresAndImagesAlreadyThere() async throws {
        let fixture = try await LiveFixture.start(.asyncHTTPClient)
        let good = fixture.serveImage("/good.jpg")
        fixture.server.setRoute("/missing.jpg", .status(404, text: "nope"))
        _ = try await fixture.pipeline.image(for: good)
        let prefetcher = ImagePrefetcher(pipeline: fixture.pipeline)
        let fresh = fixture.serveImage("/fresh.jpg", seed: 9)
        let (result, _) = await Self.prefetch([good, fixture.server.url("/missing.jpg"), fresh], with: prefetcher)
        #expect(result == ImagePrefetcher.Progress(total: 3, completed: 1, skipped: 1, failed: 1))
        #expect(fixture.pipeline.cachedImage(for: ImageRequest(url: fresh)) != nil)
        let (empty, _) = await Self.prefetch([], with: prefetcher)
        #expect(empty == ImagePrefetcher.Progress(total: 0) && empty.fractionFinished == 1)
        try await fixture.finish()
    }

    @Test func aBatchListingAnImageTwiceCompletesWithTheSecondSkipped() async throws {
        let fixture = try await LiveFixture.start(.asyncHTTPClient)
        let url = fixture.serveImage("/twice.jpg")
        let (result, _) = await Self.prefetch([url, url], with: ImagePrefetcher(pipeline: fixture.pipeline))
        #expect(result == ImagePrefetcher.Progress(total: 2, completed: 1, skipped: 1))
        #expect(fixture.server.requestCount(for: "/twice.jpg") == 1)
        try await fixture.finish()
    }
}
