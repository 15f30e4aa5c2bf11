// The frames checked here are the libvips decoder's (Linux); ImageIO's frame source has no test run here.
#if canImport(ShashinVips)
import Foundation
import ImageServer
import Shashin
import Testing

/// A long animated GIF served over HTTP and delivered as a frame source: the response's first
/// frame arrives with the frame count and durations, the memory cache holds that frame and the
/// data (not every frame), and the other frames decode on demand at the requested size.
@Suite("Streamed animation over HTTP")
struct LiveStreamedAnimationTests {
    @Test("a streamed GIF loads, the memory cache holds its first frame, frames decode on demand", arguments: LoaderFactory.all)
    func streamedOverHTTP(loader: LoaderFactory) async throws {
        let gif = AnimatedGIFWriter.movingSquare(width: 400, height: 300, frames: 120, centiseconds: 5)
        let cache = MemoryCache()
        let fixture = try await LiveFixture.start(loader) { $0.memoryCache = cache }
        fixture.server.setRoute("/long.gif", .data(gif, contentType: "image/gif", headers: ["Cache-Control": "max-age=600"]))
        var request = ImageRequest(url: fixture.server.url("/long.gif"), thumbnail: ThumbnailOptions(maxPixelSize: 100))
        request.animationDelivery = .frameSource
        let response = try await fixture.pipeline.response(for: request)
        let animation = try #require(response.animation)
        let source = try #require(animation.frameSource)
        #expect(animation.format == .gif && animation.frames.isEmpty && animation.data == gif)
        #expect(source.frameCount == 120 && source.durations.allSatisfy { $0 == 0.05 })
        let first = try #require(Bitmap(platformImage: response.image))
        #expect(first.width == 100 && first.height == 75)
        #expect(cache.totalCost == 100 * 75 * 4 + gif.count, "the first frame and the data: \(cache.totalCost)")

        // The same request again is a memory hit with the same source.
        #expect(fixture.pipeline.cachedImage(for: request)?.animation?.frameSource === source)

        // Frames on demand, at the thumbnail size, equal to the whole decode's of the same bytes.
        var whole = request
        whole.animationDelivery = .allFrames
        let expected = try #require(try await fixture.pipeline.response(for: whole).animation)
        #expect(expected.frames.count == 120)
        let buffer = source.makeBuffer()
        for index in [1, 2, 3, 60, 119, 0, 5] {
            let frame = try await buffer.frame(at: index)
            #expect(frame.width == 100 && frame.height == 75)
            #expect(frame.pixels == expected.frames[index].bitmap.pixels, "frame \(index)")
            #expect(buffer.bufferedIndices.count <= AnimationFrameBuffer.defaultCapacity)
        }
        try await fixture.finish()
    }
}
#endif
