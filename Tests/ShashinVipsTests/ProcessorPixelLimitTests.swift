// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import Shashin
import Testing

/// Inverts the colours, keeping alpha; written against `process(_:)` alone, as a processor that
/// knows nothing of `ImageProcessingContext`.
private struct Invert: ImageProcessing {
    var identifier: String { "invert-v1" }

    func process(_ image: PlatformImage) throws -> PlatformImage {
        Bitmap(width: image.width, height: image.height,
               pixels: image.pixels.enumerated().map { $0.offset % 4 == 3 ? $0.element : 255 - $0.element })
    }
}

/// The built-in processors keep what they make within the pipeline's configured `maxPixelCount`,
/// which reaches them through `ImageProcessingContext`; a processor with only `process(_:)` runs
/// in the pipeline as before.
@Suite("Processors: the configured pixel limit")
struct ProcessorPixelLimitTests {
    static let stillURL = URL(string: "https://images.test/still.png")!
    static let movingURL = URL(string: "https://images.test/moving.gif")!
    /// 50×40: 2,000 pixels, within `smallLimit`, so the decode passes it.
    static let still = TestImages.gradient(width: 50, height: 40)
    /// A limit the decoded images pass and the upscaled ones do not.
    static let smallLimit = 10_000
    /// 50×40 → 200×160 (32,000 pixels); each 40×30 frame → 200×150 (30,000 pixels).
    static let upscale = ImageProcessors.Resize(width: 200, upscale: true)

    static func pipeline(maxPixelCount: Int? = nil) throws -> ImagePipeline {
        let png = try VipsImageEncoder().encodeBitmap(still, as: .png, quality: 1)
        let gif = try AnimatedFiles.make(.gif, frames: AnimatedImages.frames)
        var configuration = ImagePipeline.Configuration()
        configuration.dataLoader = FixedDataLoader(bodies: [stillURL: png, movingURL: gif])
        if let maxPixelCount { configuration.maxPixelCount = maxPixelCount }
        return ImagePipeline(configuration: configuration)
    }

    /// The error `request` fails with, `nil` when it succeeds.
    static func failure(of request: ImageRequest, in pipeline: ImagePipeline) async -> (any Error)? {
        do { _ = try await pipeline.response(for: request); return nil } catch { return error }
    }

    /// Expects `error` to be the resize's `processingFailed` naming `size` and `smallLimit`.
    static func expectOverTheLimit(_ error: (any Error)?, size: String) {
        guard case .processingFailed(let identifier, let reason)? = error as? ImagePipelineError else {
            Issue.record("expected processingFailed, got \(String(describing: error))")
            return
        }
        #expect(identifier == upscale.identifier)
        #expect(reason == "The target size \(size) is over the limit of \(smallLimit) pixels")
    }

    @Test func aResizePastTheConfiguredLimitFailsNamingIt() async throws {
        let pipeline = try Self.pipeline(maxPixelCount: Self.smallLimit)
        let error = await Self.failure(of: ImageRequest(url: Self.stillURL, processors: [Self.upscale]), in: pipeline)
        Self.expectOverTheLimit(error, size: "200×160")
    }

    @Test func theSameResizeUnderTheDefaultLimitSucceeds() async throws {
        let image = try await Self.pipeline().image(for: ImageRequest(url: Self.stillURL, processors: [Self.upscale]))
        #expect((image.width, image.height) == (200, 160))
    }

    @Test func aCompositionPassesTheLimitToItsSteps() async throws {
        let pipeline = try Self.pipeline(maxPixelCount: Self.smallLimit)
        let request = ImageRequest(url: Self.stillURL, processors: [.composition([Invert(), Self.upscale])])
        Self.expectOverTheLimit(await Self.failure(of: request, in: pipeline), size: "200×160")
    }

    @Test func everyFrameOfAnAnimationIsHeldToTheLimit() async throws {
        let request = ImageRequest(url: Self.movingURL, processors: [Self.upscale])
        let limited = try Self.pipeline(maxPixelCount: Self.smallLimit)
        Self.expectOverTheLimit(await Self.failure(of: request, in: limited), size: "200×150")
        let response = try await Self.pipeline().response(for: request)
        #expect(response.animation?.frames.map { [$0.bitmap.width, $0.bitmap.height] } == Array(repeating: [200, 150], count: 4))
    }

    @Test func aProcessorWithOnlyProcessStillRunsInThePipeline() async throws {
        let pipeline = try Self.pipeline(maxPixelCount: Self.smallLimit)
        let image = try await pipeline.image(for: ImageRequest(url: Self.stillURL, processors: [Invert()]))
        #expect(image == (try Invert().process(Self.still)))
        // Its context form is the default, which calls `process(_:)` whatever the limit.
        #expect(try Invert().process(Self.still, context: ImageProcessingContext(maxPixelCount: 1)) == image)
    }
}
#endif
