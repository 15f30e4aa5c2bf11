import Foundation
import Testing
@testable import ShashinCore

/// Records the pixel limit of every context it is run with, and returns the image unchanged.
private struct LimitRecordingProcessor: ImageProcessing {
    let identifier = "limit-recorder"
    let limits = Locked<[Int]>([])

    func process(_ image: PlatformImage) throws -> PlatformImage {
        try process(image, context: ImageProcessingContext())
    }

    func process(_ image: PlatformImage, context: ImageProcessingContext) throws -> PlatformImage {
        limits.withLock { $0.append(context.maxPixelCount) }
        return image
    }
}

@Suite("Processing context")
struct PipelineProcessingContextTests {
    let url = PipelineFixture.url("a")

    @Test func everyProcessorIsRunWithTheConfiguredPixelLimit() async throws {
        let fixture = PipelineFixture { $0.maxPixelCount = 1_234 }
        let first = LimitRecordingProcessor(), second = LimitRecordingProcessor()
        let task = fixture.task(ImageRequest(url: url, processors: [first, second]))
        try await fixture.loader.respond(to: url, with: TestImages.encode(width: 2, height: 2, fill: 1))
        _ = try await task.response
        #expect(first.limits.current == [1_234])
        #expect(second.limits.current == [1_234])
        try await fixture.waitUntilIdle()
    }

    @Test func aProcessorImplementingOnlyProcessIsRunThroughTheContextForm() throws {
        let processor = CountingProcessor("plain")
        let image = TestImages.makeImage(width: 2, height: 1, fill: 5)
        let output = try processor.process(image, context: ImageProcessingContext(maxPixelCount: 1))
        #expect(processor.calls.current == 1)
        #expect(output.testBitmap.pixels[0] == 6)
    }

    @Test func theDefaultContextHasTheConfigurationsDefaultLimit() {
        #expect(ImageProcessingContext().maxPixelCount == ImagePipeline.Configuration(decoder: TestDecoder()).maxPixelCount)
        #expect(ImageProcessingContext().maxPixelCount == ImageDecodingContext.defaultMaxPixelCount)
    }
}
