import Foundation
import Testing
@testable import ShashinCore

/// How the delivery of an animation is chosen: the request's choice over the pipeline's, in the
/// memory cache key, and what the decoder is told to do.
@Suite struct AnimationDeliveryTests {
    static let url = URL(string: "https://images.test/a.gif")!

    @Test func theRequestsChoiceIsPartOfItsCacheKey() {
        let plain = ImageRequest(url: Self.url)
        var streamed = plain
        streamed.animationDelivery = .frameSource
        var still = plain
        still.animationDelivery = .firstFrameOnly
        #expect(plain.cacheKey.animationDelivery == nil)
        #expect(streamed.cacheKey.animationDelivery == .frameSource && streamed.cacheKey != plain.cacheKey)
        #expect(still.cacheKey.animationDelivery == .firstFrameOnly, "setting the delivery changes the key")
        #expect(still.cacheKey != streamed.cacheKey)
        still.animationDelivery = .frameSource
        #expect(still.cacheKey == streamed.cacheKey)
        #expect(streamed.cacheKey.description == "https://images.test/a.gif {frame source}")
    }

    @Test func thePipelinesDeliveryIsInTheImageKeyUnlessTheRequestChose() {
        let plain = ImageRequest(url: Self.url)
        var streamed = plain
        streamed.animationDelivery = .frameSource
        let still = CacheKeys(rule: nil, animationDelivery: .firstFrameOnly)
        #expect(still.imageKey(for: plain).animationDelivery == .firstFrameOnly)
        #expect(still.imageKey(for: streamed).animationDelivery == .frameSource, "the request's own choice wins")
        #expect(CacheKeys(rule: nil).imageKey(for: plain) == plain.cacheKey, "automatic adds nothing")
        // Two pipelines that deliver differently never share a memory cache entry.
        let memory = MemoryCache()
        var configuration = ImagePipeline.Configuration(decoder: TestDecoder())
        configuration.memoryCache = memory
        let automatic = ImagePipeline(configuration: configuration)
        configuration.animationDelivery = .firstFrameOnly
        let firstFrameOnly = ImagePipeline(configuration: configuration)
        automatic.storeCachedImage(Bitmap(width: 1, height: 1, pixels: [1, 2, 3, 255]).platformImage, for: plain, caches: .memory)
        #expect(automatic.cachedImage(for: plain) != nil)
        #expect(firstFrameOnly.cachedImage(for: plain) == nil)
    }

    @Test func thePlanFollowsTheDeliveryAndTheBudget() {
        let target = (width: 100, height: 100)
        func plan(_ delivery: AnimationDelivery, frames: Int) -> ImageDecodingContext.AnimationPlan {
            ImageDecodingContext(format: .gif, maxAnimationByteCount: 10 * 100 * 100 * 4, animationDelivery: delivery)
                .animationPlan(frameCount: frames, width: 100, height: 100, target: target)
        }
        let over = AnimationShortfall.overByteBudget(byteCount: 11 * 100 * 100 * 4, limit: 10 * 100 * 100 * 4)
        #expect(plan(.allFrames, frames: 10) == .allFrames)
        #expect(plan(.allFrames, frames: 11) == .firstFrame(over))
        #expect(plan(.automatic, frames: 10) == .allFrames)
        #expect(plan(.automatic, frames: 11) == .frameSource, "automatic streams what does not fit")
        #expect(plan(.frameSource, frames: 2) == .frameSource)
        #expect(plan(.firstFrameOnly, frames: 2) == .firstFrame(.firstFrameRequested))
        #expect(ImageDecodingContext(format: nil).animationDelivery == .allFrames)
        #expect(ImagePipeline.Configuration(decoder: TestDecoder()).animationDelivery == .automatic)
    }

    @Test func aStreamedAnimationCountsItsFirstFrameAndDataAndItsSourcesDurations() {
        let (source, _) = LoggedFrames.source(frames: 4, duration: 0.25)
        let first = Bitmap(width: 2, height: 2, pixels: [UInt8](repeating: 9, count: 16))
        var image = first
        image.animation = ImageAnimation(format: .gif, frameCount: 4, data: Data(count: 1000), frameSource: source)
        #expect(image.byteCount == 16 + 1000)
        #expect(image.animation?.totalDuration == 1)
        #expect(image.animation?.isStreamed == true && image.animation?.isFirstFrameOnly == false)
        #expect(image.animation?.playableFrames === source)
        #expect(image.animation?.description == "gif, 4 frames, 1000 bytes, streamed")
    }
}
