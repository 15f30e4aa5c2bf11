import Foundation
import Testing
@testable import ShashinCore

@Suite("Coalescing identical work")
struct PipelineCoalescingTests {
    @Test func hundredConcurrentRequestsForOneURLDownloadAndDecodeOnce() async throws {
        let fixture = PipelineFixture()
        let url = PipelineFixture.url("a")
        let tasks = (0..<100).map { _ in fixture.task(ImageRequest(url: url)) }
        try await fixture.loader.respond(to: url, with: TestImages.encode(width: 4, height: 3, fill: 9))
        for task in tasks {
            let image = try await task.image
            #expect(image.pixelWidth == 4 && image.pixelHeight == 3)
        }
        #expect(fixture.loader.startCount == 1)
        #expect(fixture.decoder.calls.current == 1)
        try await fixture.waitUntilIdle()
    }

    @Test func requestsWithDifferentProcessorsShareTheDownloadAndTheDecode() async throws {
        let fixture = PipelineFixture()
        let url = PipelineFixture.url("a")
        let a = CountingProcessor("a"), b = CountingProcessor("b"), c = CountingProcessor("c")
        let tasks = [
            fixture.task(ImageRequest(url: url, processors: [a])),
            fixture.task(ImageRequest(url: url, processors: [a, b])),
            fixture.task(ImageRequest(url: url, processors: [a, b, c])),
            fixture.task(ImageRequest(url: url, processors: [c])),
        ]
        try await fixture.loader.respond(to: url, with: TestImages.encode(width: 2, height: 2, fill: 0))
        let firstPixels = try await tasks.asyncMap { try await $0.image.testBitmap.pixels[0] }
        #expect(firstPixels == [1, 2, 3, 1])
        #expect(fixture.loader.startCount == 1)
        #expect(fixture.decoder.calls.current == 1)
        #expect(a.calls.current == 1 && b.calls.current == 1 && c.calls.current == 2)
        try await fixture.waitUntilIdle()
    }

    @Test func aThousandRequestsOverTenURLsMakeTenDownloads() async throws {
        let fixture = PipelineFixture { $0.maxConcurrentDownloads = 10 }
        let urls = (0..<10).map { PipelineFixture.url("\($0)") }
        let tasks = (0..<1_000).map { fixture.task(ImageRequest(url: urls[$0 % 10])) }
        try await fixture.loader.waitForPendingCount(10)
        for url in urls { try await fixture.loader.respond(to: url, with: TestImages.encode(width: 1, height: 1, fill: 1)) }
        for task in tasks { _ = try await task.image }
        #expect(fixture.loader.startCount == 10)
        #expect(Set(fixture.loader.startedURLs) == Set(urls))
        try await fixture.waitUntilIdle()
    }

    @Test func aCachedPrefixIsReusedAndNothingIsDownloaded() async throws {
        let fixture = PipelineFixture()
        let url = PipelineFixture.url("a")
        let a = CountingProcessor("a"), b = CountingProcessor("b")
        let first = fixture.task(ImageRequest(url: url, processors: [a]))
        try await fixture.loader.respond(to: url, with: TestImages.encode(width: 2, height: 2, fill: 0))
        _ = try await first.image
        let second = fixture.task(ImageRequest(url: url, processors: [a, b]))
        let image = try await second.image
        #expect(image.testBitmap.pixels[0] == 2)
        #expect(fixture.loader.startCount == 1)
        #expect(a.calls.current == 1 && b.calls.current == 1)
        try await fixture.waitUntilIdle()
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
