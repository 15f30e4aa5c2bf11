import Foundation
import ImageServer
import Shashin
@testable import ShashinCore
import Testing

@Suite("Over HTTP: coalescing and the download bound")
struct LiveCoalescingTests {
    @Test(arguments: LoaderFactory.all) func hundredConcurrentRequestsForOneURLMakeOneDownload(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        let url = fixture.serveImage("/one.jpg", latency: .milliseconds(200))
        let tasks = (0..<100).map { _ in fixture.task(ImageRequest(url: url, thumbnail: .init(maxPixelSize: 32))) }
        for task in tasks {
            let image = try await task.image
            #expect(image.pixelWidth == 32 && image.pixelHeight == 24)
        }
        #expect(fixture.server.requestCount(for: "/one.jpg") == 1)
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all) func theSameURLWithDifferentProcessorsDownloadsOnce(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        let url = fixture.serveImage("/shared.png", format: .png, latency: .milliseconds(200))
        let flip = AnonymousProcessor("flip") {
            let bitmap = $0.testBitmap
            return Bitmap(width: bitmap.width, height: bitmap.height, pixels: bitmap.pixels.reversed()).platformImage
        }
        let crop = AnonymousProcessor("crop-1x1") { Bitmap(width: 1, height: 1, pixels: Array($0.testBitmap.pixels.prefix(4))).platformImage }
        let tasks = [[], [flip], [crop], [flip, crop]].map { fixture.task(ImageRequest(url: url, processors: $0)) }
        let sizes = try await tasks.asyncMap { try await $0.image.pixelWidth }
        #expect(sizes == [64, 64, 1, 1])
        #expect(fixture.server.requestCount(for: "/shared.png") == 1)
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all) func aThousandConcurrentRequestsOverTenURLsMakeExactlyTenDownloads(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader) { $0.maxConcurrentDownloads = 10 }
        let urls = (0..<10).map { fixture.serveImage("/ten/\($0).webp", format: .webp, seed: UInt64($0), latency: .milliseconds(300)) }
        let tasks = (0..<1_000).map { fixture.task(ImageRequest(url: urls[$0 % 10])) }
        for task in tasks { _ = try await task.image }
        #expect(fixture.server.totalRequests == 10)
        for i in 0..<10 { #expect(fixture.server.requestCount(for: "/ten/\(i).webp") == 1) }
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all) func neverMoreDownloadsInFlightThanConfigured(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader) { $0.maxConcurrentDownloads = 3 }
        let urls = (0..<15).map { fixture.serveImage("/bound/\($0).jpg", seed: UInt64($0), latency: .milliseconds(60)) }
        let tasks = urls.map { fixture.task(ImageRequest(url: $0)) }
        for task in tasks { _ = try await task.image }
        #expect(fixture.server.totalRequests == 15)
        #expect(fixture.server.maxInFlight <= 3)
        #expect(fixture.server.maxInFlight >= 2) // the bound is used, not just respected
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all) func queuedDownloadsStartInPriorityOrder(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader) { $0.maxConcurrentDownloads = 1 }
        // Long enough for the three requests below to pass their disk-cache step and queue up
        // behind it even in a sanitizer build; the wait below makes sure they did.
        let busy = fixture.task(ImageRequest(url: fixture.serveImage("/busy.jpg", latency: .milliseconds(1500))))
        try await waitFor { fixture.server.inFlight == 1 }
        let arrivals = ArrivalLog()
        let names = ["low", "high", "normal"]
        let priorities: [ImageRequest.Priority] = [.low, .high, .normal]
        let tasks = zip(names, priorities).map { name, priority in
            fixture.server.setRoute("/order/\(name).jpg") { request in
                arrivals.append(name)
                return .image(ImageSpec(format: .jpeg, width: 16, height: 16, seed: 1))
            }
            return fixture.task(ImageRequest(url: fixture.server.url("/order/\(name).jpg"), priority: priority))
        }
        try await waitFor { fixture.pipeline.graph.networkQueue.pendingCount == 3 }
        #expect(fixture.server.inFlight == 1) // still busy: the order is the queue's
        _ = try await busy.image
        for task in tasks { _ = try await task.image }
        let order = arrivals.names
        #expect(order == ["high", "normal", "low"])
        try await fixture.finish()
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}

/// The order requests reached the server, recorded by route responders.
final class ArrivalLog: Sendable {
    private let entries = Locked<[String]>([])
    func append(_ name: String) { entries.withLock { $0.append(name) } }
    var names: [String] { entries.current }
}
