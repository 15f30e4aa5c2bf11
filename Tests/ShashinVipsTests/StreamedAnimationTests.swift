// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ImageServer
import ShashinCore
@testable import ShashinVips
import Testing

/// The animations the streaming tests decode: GIF frames with every disposal and transparency,
/// a lossless WebP of blended sub-frames, and APNGs (Pillow's, with regions; ours with every
/// disposal and blending).
enum StreamedFixtures {
    static func all() throws -> [(name: String, data: Data)] {
        let webp = try AnimatedFiles.make(.webp, frames: AnimationComposition.movingSquareFrames(count: 5), delays: [70, 80, 90, 100, 110], loop: 3)
        let gif = try AnimatedFiles.make(.gif, frames: AnimatedImages.quadrantFrames(count: 6, width: 32, height: 24),
                                         delays: [40, 50, 60, 70, 80, 90], loop: 0)
        return [("region GIF", AnimationComposition.gif), ("quadrant GIF", gif), ("sub-frame WebP", webp),
                ("Pillow APNG", try Fixtures.data("apng/pillow-regions.png")), ("regions APNG", APNGComposition.regionsAPNG())]
    }

    static func decode(_ data: Data, _ delivery: AnimationDelivery, thumbnail: ThumbnailOptions? = nil) throws -> Bitmap {
        try VipsImageDecoder().decodeBitmap(data, context: .init(format: nil, thumbnail: thumbnail, animationDelivery: delivery))
    }

    /// The frames the decoder counted while `body` ran.
    static func countingFrames<T>(_ body: () throws -> T) rethrows -> (T, Int) {
        let counter = DecodedFrameCounter()
        let result = try DecodedFrameCounter.$current.withValue(counter) { try body() }
        return (result, counter.frames)
    }

    /// The frames the decoder counted while `body` ran, frame buffers' decode queues included.
    static func countingFrames<T>(_ body: () async throws -> T) async rethrows -> (T, Int) {
        let counter = DecodedFrameCounter()
        let result = try await DecodedFrameCounter.$current.withValue(counter) { try await body() }
        return (result, counter.frames)
    }
}

extension APNGComposition {
    /// Every disposal and blending on a 6×4 canvas (`disposalAndBlendingComposeEachFrame`'s frames).
    static func regionsAPNG() -> Data {
        let (r, b, g, c, h) = (red, blue, green, clear, halfBlue)
        var writer = AnimatedPNGWriter(width: 6, height: 4, plays: 2)
        writer.frames = [
            Frame(image: region(6, 4, Array(repeating: r, count: 24))),
            Frame(image: region(2, 2, [b, b, b, b]), disposal: 1),
            Frame(image: region(2, 2, [g, c, c, g]), x: 4, y: 2, disposal: 2, blending: 1),
            Frame(image: region(2, 2, [b, c, h, b]), x: 2, y: 1),
            Frame(image: region(3, 1, [h, h, h]), x: 0, y: 2, blending: 1),
        ]
        return writer.data()
    }
}

/// A frame source's frames are the whole decode's, pixel for pixel, whatever order they are
/// asked in, at full size and at a thumbnail size.
@Suite struct StreamedAnimationFrames {
    @Test(arguments: [nil, ThumbnailOptions(maxPixelSize: 13)])
    func streamedFramesMatchTheWholeDecode(thumbnail: ThumbnailOptions?) async throws {
        for (name, data) in try StreamedFixtures.all() {
            let whole = try #require(try StreamedFixtures.decode(data, .allFrames, thumbnail: thumbnail).animation, "\(name)")
            let streamed = try StreamedFixtures.decode(data, .frameSource, thumbnail: thumbnail)
            let animation = try #require(streamed.animation, "\(name)")
            let source = try #require(animation.frameSource, "\(name)")
            #expect(animation.frames.isEmpty && animation.isStreamed && !animation.isFirstFrameOnly, "\(name)")
            #expect(whole.shortfall == nil && whole.frames.count == source.frameCount, "\(name)")
            #expect(source.durations == whole.frames.map(\.duration), "\(name)")
            #expect(source.loopCount == whole.loopCount && animation.frameCount == whole.frameCount, "\(name)")
            #expect(streamed.pixels == whole.frames[0].bitmap.pixels, "\(name): the first frame")
            let count = source.frameCount
            // In order, twice round (the second loop reopens the file), then skipping ahead
            // and going back.
            let order = Array(0..<count) + Array(0..<count) + [count - 1, 1, count - 2, 0]
            let buffer = source.makeBuffer(capacity: 2)
            for index in order {
                let frame = try await buffer.frame(at: index)
                #expect(frame.width == whole.frames[index].bitmap.width && frame.height == whole.frames[index].bitmap.height)
                #expect(frame.pixels == whole.frames[index].bitmap.pixels, "\(name): frame \(index)")
            }
        }
    }

    @Test func aStreamedDecodeDecodesOnlyTheFirstFrameAndPlayingDecodesEachFrameOnce() async throws {
        for (name, data) in try StreamedFixtures.all() {
            let (image, decodedUpFront) = try StreamedFixtures.countingFrames { try StreamedFixtures.decode(data, .frameSource) }
            #expect(decodedUpFront == 1, "\(name): \(decodedUpFront) frames decoded up front")
            let source = try #require(image.animation?.frameSource)
            // A buffer of one frame, so no frame past the last is decoded ahead: a new reader
            // composes frame 0 under frame 1, then each frame once.
            let buffer = source.makeBuffer(capacity: 1)
            let (_, played) = try await StreamedFixtures.countingFrames {
                for index in 1..<source.frameCount { _ = try await buffer.frame(at: index) }
            }
            #expect(played == source.frameCount, "\(name): playing frames 1…\(source.frameCount - 1) decoded \(played)")
            #expect(buffer.bufferedIndices == [source.frameCount - 1])
        }
    }

    /// Playing a long animation twice decodes about 2n frames, not n²/2: each reader goes on
    /// from the frame it decoded last, and opens the file again only for a new loop.
    @Test func playingALongGIFTwiceDecodesEachFrameOncePerLoop() async throws {
        let gif = AnimatedGIFWriter.movingSquare(width: 64, height: 48, frames: 300)
        let source = try #require(try StreamedFixtures.decode(gif, .frameSource).animation?.frameSource)
        let buffer = source.makeBuffer()
        let (_, decoded) = try await StreamedFixtures.countingFrames {
            for _ in 0..<2 { for index in 0..<300 { _ = try await buffer.frame(at: index) } }
        }
        #expect(decoded <= 2 * 300 + AnimationFrameBuffer.defaultCapacity, "\(decoded) frames decoded for 600 played")
        #expect(buffer.decodedFrameCount <= 600 + AnimationFrameBuffer.defaultCapacity)
    }

    /// 6,000 one-pixel frames: more than libvips lays out in one load. The decode never fails
    /// for it: it streams what libvips gives, or falls back to the first frame.
    @Test func aGIFOfThousandsOfTinyFramesStreamsOrKeepsItsFirstFrame() async throws {
        let writer = AnimatedGIFWriter(width: 16, height: 16)
        let frames = [AnimatedGIFWriter.Frame(x: 0, y: 0, width: 16, height: 16, indices: [UInt8](repeating: 0, count: 256))]
            + (1..<6_000).map { AnimatedGIFWriter.Frame(x: $0 % 16, y: $0 / 16 % 16, width: 1, height: 1, indices: [UInt8(1 + $0 % 3)], centiseconds: 2) }
        let image = try StreamedFixtures.decode(writer.data(frames), .frameSource)
        let animation = try #require(image.animation)
        #expect(image.width == 16 && animation.frameCount == 6_000)
        print("6,000 one-pixel GIF frames, streamed: \(animation.frameSource.map { "\($0.frameCount) frames play" } ?? "first frame only")")
        if let source = animation.frameSource {
            #expect(source.frameCount > 1)
            _ = try await source.makeBuffer().frame(at: source.frameCount - 1)
        } else {
            #expect(animation.shortfall == .damaged(decodedFrames: 1) && animation.playableFrames == nil)
        }
    }

    @Test func aGIFCutShortStreamsItsCompleteFramesAndFailsPastThem() async throws {
        let gif = try AnimatedFiles.make(.gif, frames: AnimatedImages.quadrantFrames(count: 6, width: 32, height: 24), delays: nil, loop: 0)
        let cut = gif.prefix(gif.count * 2 / 3)
        let whole = try #require(try StreamedFixtures.decode(cut, .allFrames).animation)
        guard case .damaged(let kept)? = whole.shortfall else { Issue.record("\(String(describing: whole.shortfall))"); return }
        let source = try #require(try StreamedFixtures.decode(cut, .frameSource).animation?.frameSource)
        #expect(source.frameCount == kept)
        for index in 0..<kept {
            #expect(try await source.makeBuffer().frame(at: index).pixels == whole.frames[index].bitmap.pixels, "frame \(index)")
        }
    }
}

/// `AnimationDelivery.firstFrameOnly` decodes one frame of an animation, counted in the
/// decoder; decoding every frame counts them all.
@Suite struct FirstFrameOnlyDecoding {
    @Test func firstFrameOnlyDecodesExactlyOneFrame() throws {
        for (name, data) in try StreamedFixtures.all() {
            let (whole, all) = try StreamedFixtures.countingFrames { try StreamedFixtures.decode(data, .allFrames) }
            let frameCount = try #require(whole.animation?.frames.count)
            #expect(all == frameCount && frameCount > 2, "\(name): the whole decode counts \(all) of \(frameCount)")
            let (first, one) = try StreamedFixtures.countingFrames { try StreamedFixtures.decode(data, .firstFrameOnly) }
            #expect(one == 1, "\(name): \(one) frames decoded")
            let animation = try #require(first.animation, "\(name)")
            #expect(animation.isFirstFrameOnly && animation.shortfall == .firstFrameRequested && animation.frames.isEmpty)
            #expect(animation.frameCount == whole.animation?.frameCount && animation.loopCount == whole.animation?.loopCount)
            #expect(animation.playableFrames == nil, "\(name): nothing to play")
            #expect(first.byteCount == first.pixels.count + data.count, "\(name): one frame and the data in the cache")
        }
    }
}
/// Streamed animations through the pipeline: the memory cache holds the first frame and the
/// data, processors run on each frame as it is decoded, and the delivery is part of the key.
@Suite struct StreamedAnimationPipeline {
    static let url = URL(string: "https://images.test/streamed.gif")!

    static func pipeline(_ gif: Data, _ configure: (inout ImagePipeline.Configuration) -> Void = { _ in }) -> ImagePipeline {
        var configuration = ImagePipeline.Configuration(decoder: VipsImageDecoder())
        configuration.dataLoader = FixedDataLoader(bodies: [url: gif], headers: ["Cache-Control": "max-age=600"])
        configure(&configuration)
        return ImagePipeline(configuration: configuration)
    }

    @Test func theMemoryCacheHoldsTheFirstFrameAndTheDataAndProcessorsRunAsFramesDecode() async throws {
        let frames = AnimatedImages.quadrantFrames(count: 8, width: 32, height: 24)
        let gif = try AnimatedFiles.make(.gif, frames: frames, delays: Array(repeating: 50, count: 8), loop: 0)
        let cache = MemoryCache()
        let pipeline = Self.pipeline(gif) { $0.memoryCache = cache }
        var request = ImageRequest(url: Self.url, processors: [.resize(width: 16), .roundedCorners(radius: 4)])
        request.animationDelivery = .frameSource
        let response = try await pipeline.response(for: request)
        let animation = try #require(response.animation)
        let source = try #require(animation.frameSource)
        #expect(animation.frames.isEmpty && source.frameCount == 8 && animation.data == gif)
        #expect(response.image.width == 16 && response.image.height == 12)
        #expect(response.image.byteCount == 16 * 12 * 4 + gif.count)
        // Each stage (decoded, resized, rounded) is cached with its first frame and the data.
        #expect(cache.totalCost == 32 * 24 * 4 + 2 * (16 * 12 * 4) + 3 * gif.count, "first frames and the data: \(cache.totalCost)")
        #expect(cache.image(forKey: request.cacheKey)?.animation?.frameSource === source)

        var whole = request
        whole.animationDelivery = .allFrames
        let expected = try #require(try await pipeline.response(for: whole).animation)
        #expect(expected.frames.count == 8)
        let buffer = source.makeBuffer()
        for index in 0..<8 {
            #expect(try await buffer.frame(at: index).pixels == expected.frames[index].bitmap.pixels, "frame \(index), processed")
        }
    }

    @Test func requestsThatDifferInDeliveryAreCachedApart() async throws {
        let gif = try AnimatedFiles.make(.gif, frames: AnimatedImages.quadrantFrames(count: 4), delays: nil, loop: 0)
        let pipeline = Self.pipeline(gif)
        var streamed = ImageRequest(url: Self.url)
        streamed.animationDelivery = .frameSource
        #expect(try await pipeline.response(for: streamed).animation?.isStreamed == true)
        var still = ImageRequest(url: Self.url)
        still.animationDelivery = .firstFrameOnly
        #expect(still.cacheKey != streamed.cacheKey && still.cacheKey != ImageRequest(url: Self.url).cacheKey)
        #expect(pipeline.cachedImage(for: still) == nil, "a streamed animation does not answer a first-frame request")
        let response = try await pipeline.response(for: still)
        #expect(response.animation?.isFirstFrameOnly == true && response.animation?.shortfall == .firstFrameRequested)
        #expect(pipeline.cachedImage(for: streamed)?.animation?.isStreamed == true)
    }

    /// A streamed thumbnail is not stored as a processed result (a still there would read back
    /// without its frames): the next pipeline streams it again from the original on disk.
    @Test func aStreamedThumbnailStreamsAgainFromTheOriginalOnDisk() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("streamed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let gif = try AnimatedFiles.make(.gif, frames: AnimatedImages.quadrantFrames(count: 4, width: 32, height: 24), delays: nil, loop: 0)
        let disk = try DiskCache(configuration: .init(directory: directory))
        var request = ImageRequest(url: Self.url, thumbnail: ThumbnailOptions(maxPixelSize: 16))
        request.animationDelivery = .frameSource
        let first = Self.pipeline(gif) { $0.diskCache = disk; $0.diskCachePolicy = .all }
        #expect(try await first.response(for: request).animation?.isStreamed == true)
        try await waitForBackgroundWork(first)
        #expect(try disk.entries().map(\.key).allSatisfy { !$0.hasPrefix("processed ") }, "no processed still was stored")

        let offline = Self.pipeline(Data()) { $0.diskCache = disk; $0.diskCachePolicy = .all }
        let again = try await offline.response(for: request)
        #expect(again.cacheType == .disk)
        let source = try #require(again.animation?.frameSource)
        #expect(source.frameCount == 4 && again.image.width == 16)
        #expect(try await source.makeBuffer().frame(at: 3).width == 16)
    }

    func waitForBackgroundWork(_ pipeline: ImagePipeline) async throws {
        let deadline = Date().addingTimeInterval(60)
        while pipeline.backgroundWorkCount > 0 {
            guard Date() < deadline else { Issue.record("background work did not end"); return }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
    }

    @Test func overTheByteBudgetTheDefaultDeliveryStreams() async throws {
        let gif = try AnimatedFiles.make(.gif, frames: AnimatedImages.quadrantFrames(count: 4, width: 32, height: 24), delays: nil, loop: 0)
        let tight = Self.pipeline(gif) { $0.maxAnimationByteCount = 4 * 32 * 24 * 4 - 1 }
        let over = try #require(try await tight.response(for: ImageRequest(url: Self.url)).animation)
        #expect(over.isStreamed && over.frameSource?.frameCount == 4)
        let roomy = Self.pipeline(gif)
        let within = try #require(try await roomy.response(for: ImageRequest(url: Self.url)).animation)
        #expect(!within.isStreamed && within.frames.count == 4, "within the budget every frame is decoded up front")
    }
}
#endif
