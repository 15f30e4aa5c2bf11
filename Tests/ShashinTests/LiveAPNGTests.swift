// The frames checked here are the libvips decoder's (Linux); ImageIO's APNG path has no test run here.
#if canImport(ShashinVips)
import Foundation
import ImageServer
import Shashin
import Testing

/// An animated PNG served over HTTP: the response carries every frame, and the memory cache
/// pays for them all.
@Suite("APNG over HTTP")
struct LiveAPNGTests {
    /// Three 24×16 frames of one colour each, shown for 0.1, 0.2 and 0.3 s, played twice.
    static func apng() -> Data {
        let colours: [[UInt8]] = [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255]]
        var writer = AnimatedPNGWriter(width: 24, height: 16, plays: 2)
        writer.frames = colours.enumerated().map { index, colour in
            let image = Bitmap(width: 24, height: 16, pixels: Array([[UInt8]](repeating: colour, count: 24 * 16).joined()))
            return AnimatedPNGWriter.Frame(image: image, delayNumerator: UInt16(index + 1), delayDenominator: 10)
        }
        return writer.data()
    }

    @Test("every frame reaches the response, and the memory cache counts them", arguments: LoaderFactory.all)
    func framesOverHTTP(loader: LoaderFactory) async throws {
        let data = Self.apng()
        let cache = MemoryCache()
        let fixture = try await LiveFixture.start(loader) { $0.memoryCache = cache }
        fixture.server.setRoute("/moving.png", .data(data, contentType: "image/png", headers: ["Cache-Control": "max-age=600"]))
        let request = ImageRequest(url: fixture.server.url("/moving.png"), processors: [.resize(width: 12)])
        let response = try await fixture.pipeline.response(for: request)
        let animation = try #require(response.animation)
        #expect(animation.format == .png && animation.loopCount == 2 && animation.shortfall == nil)
        #expect(animation.frames.map(\.duration) == [0.1, 0.2, 0.3])
        #expect(animation.frames.map { $0.bitmap.pixel(x: 6, y: 4).g } == [0, 255, 0])
        #expect(animation.frames.map { $0.bitmap.pixel(x: 6, y: 4).b } == [0, 0, 255])
        #expect(animation.frames.allSatisfy { $0.bitmap.width == 12 && $0.bitmap.height == 8 })
        #expect(Bitmap(platformImage: response.image)?.byteCount == 3 * 12 * 8 * 4 + data.count)
        #expect(cache.totalCost >= 3 * 12 * 8 * 4 + data.count, "every frame is paid for, \(cache.totalCost)")
        try await fixture.finish()
    }
}
#endif
