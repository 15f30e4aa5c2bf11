// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Shashin
import Testing

/// Animations through the pipeline: processors on every frame, the memory cache's cost, and
/// processed results on disk.
@Suite struct AnimationPipeline {
    static let url = URL(string: "https://images.test/moving.gif")!
    static let frames = AnimatedImages.quadrantFrames(count: 4, width: 32, height: 24)

    static func pipeline(_ bodies: [URL: Data], _ configure: (inout ImagePipeline.Configuration) -> Void = { _ in }) -> ImagePipeline {
        var configuration = ImagePipeline.Configuration()
        // Cacheable for ten minutes: processed results go to disk.
        configuration.dataLoader = FixedDataLoader(bodies: bodies, headers: ["Cache-Control": "max-age=600"])
        configure(&configuration)
        return ImagePipeline(configuration: configuration)
    }

    /// The colour of the quadrant `(column, row)` in frame `index` (see `quadrantFrames`).
    static func quadrantColour(frame index: Int, column: Int, row: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        frames[index].pixel(x: column * 16 + 8, y: row * 12 + 6)
    }

    static func isNear(_ a: (r: UInt8, g: UInt8, b: UInt8, a: UInt8), _ b: (r: UInt8, g: UInt8, b: UInt8, a: UInt8), _ tolerance: Int = 24) -> Bool {
        abs(Int(a.r) - Int(b.r)) <= tolerance && abs(Int(a.g) - Int(b.g)) <= tolerance && abs(Int(a.b) - Int(b.b)) <= tolerance
            && abs(Int(a.a) - Int(b.a)) <= tolerance
    }

    /// Every frame of `animation` is 16×12, rounded, with frame `index`'s quadrants in place.
    /// `tolerance` allows for lossy WebP, which moves saturated colours by up to ~30.
    static func expectProcessedFrames(_ animation: ImageAnimation, _ note: String, tolerance: Int = 24) {
        #expect(animation.frames.count == 4, "\(note)")
        #expect(animation.frames.map(\.duration) == AnimatedImages.delays.map { Double($0) / 1000 }, "\(note)")
        for (index, frame) in animation.frames.enumerated() {
            #expect(frame.bitmap.width == 16 && frame.bitmap.height == 12, "\(note): frame \(index)")
            #expect(frame.bitmap.pixel(x: 0, y: 0).a < 64, "\(note): frame \(index) has its corner rounded")
            for (column, row) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let got = frame.bitmap.pixel(x: column * 8 + 4, y: row * 6 + 3)
                #expect(isNear(got, quadrantColour(frame: index, column: column, row: row), tolerance), "\(note): frame \(index) quadrant \(column),\(row): \(got)")
            }
        }
    }

    @Test func processorsRunOnEveryFrameAndTheMemoryCacheCountsEveryFrame() async throws {
        let gif = try AnimatedFiles.make(.gif, frames: Self.frames, delays: AnimatedImages.delays, loop: 2)
        let cache = MemoryCache()
        let pipeline = Self.pipeline([Self.url: gif]) { $0.memoryCache = cache }
        let request = ImageRequest(url: Self.url, processors: [.resize(width: 16), .roundedCorners(radius: 4)])
        let response = try await pipeline.response(for: request)
        #expect(response.image.width == 16 && response.image.height == 12)
        let animation = try #require(response.animation)
        #expect(animation.loopCount == 2 && animation.data == gif)
        Self.expectProcessedFrames(animation, "processed")
        #expect(animation.frames[0].bitmap.pixels == response.image.pixels, "frames[0] is the image")
        let cached = try #require(cache.image(forKey: request.cacheKey))
        #expect(cached.animation == animation)
        #expect(response.image.byteCount == 4 * 16 * 12 * 4 + gif.count)
        #expect(cache.totalCost >= 4 * 16 * 12 * 4 + gif.count, "every frame is paid for, \(cache.totalCost)")
    }

    @Test func aProcessedAnimationStoredOnDiskKeepsItsFrames() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("animation-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let gif = try AnimatedFiles.make(.gif, frames: Self.frames, delays: AnimatedImages.delays, loop: 2)
        let disk = try DiskCache(configuration: .init(directory: directory))
        let request = ImageRequest(url: Self.url, processors: [.resize(width: 16), .roundedCorners(radius: 4)])
        let first = Self.pipeline([Self.url: gif]) { $0.diskCache = disk; $0.diskCachePolicy = .processed }
        _ = try await first.response(for: request)
        try await waitUntil { first.backgroundWorkCount == 0 }

        // No network this time: the result can only come from the disk.
        let second = Self.pipeline([:]) { $0.diskCache = disk; $0.diskCachePolicy = .processed }
        let response = try await second.response(for: request)
        #expect(response.cacheType == .disk)
        let animation = try #require(response.animation)
        #expect(animation.format == .webp && animation.loopCount == 2)
        Self.expectProcessedFrames(animation, "from disk", tolerance: 48)
    }

    @Test func overTheByteBudgetTheResponseSaysFirstFrameOnly() async throws {
        let gif = try AnimatedFiles.make(.gif, frames: Self.frames, delays: AnimatedImages.delays, loop: 0)
        let pipeline = Self.pipeline([Self.url: gif]) {
            $0.maxAnimationByteCount = 4 * 32 * 24 * 4 - 1
            $0.animationDelivery = .allFrames
        }
        let response = try await pipeline.response(for: ImageRequest(url: Self.url, processors: [.resize(width: 16)]))
        #expect(response.image.width == 16)
        #expect(response.animation?.isFirstFrameOnly == true)
        #expect(response.animation?.shortfall == .overByteBudget(byteCount: 4 * 32 * 24 * 4, limit: 4 * 32 * 24 * 4 - 1))
        #expect(response.image.byteCount == 16 * 12 * 4 + gif.count)
    }
}

/// Waits, polling, until `condition` holds; fails after 60 s.
private func waitUntil(_ condition: () -> Bool) async throws {
    let deadline = Date().addingTimeInterval(60)
    while !condition() {
        guard Date() < deadline else {
            Issue.record("condition not met within 60 s")
            return
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}
#endif
