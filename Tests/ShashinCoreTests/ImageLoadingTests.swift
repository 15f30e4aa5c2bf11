import Foundation
import Testing
@testable import ShashinCore

/// `ImageLoading`: business-layer code takes "an image loader", gets the pipeline in the app and
/// a fake in its tests.
@Suite("ImageLoading: the one-method loader protocol")
struct ImageLoadingTests {
    /// A view model as an app would write it: it knows only `ImageLoading`.
    @MainActor
    final class AvatarModel {
        private let images: any ImageLoading
        private(set) var avatar: PlatformImage?
        private(set) var failed = false

        init(images: any ImageLoading) { self.images = images }

        func load(_ url: URL) async {
            do { avatar = try await images.image(for: url) } catch { failed = true }
        }
    }

    /// The fake a view model's test hands it: answers from a dictionary, fails otherwise.
    struct FakeImages: ImageLoading {
        /// Bitmaps, which are Sendable on every platform; the platform image is made per call.
        let images: [URL: Bitmap]
        func image(for url: URL) async throws -> PlatformImage {
            guard let bitmap = images[url] else { throw URLError(.fileDoesNotExist) }
            return bitmap.platformImage
        }
    }

    @Test @MainActor func aViewModelLoadsThroughAFake() async {
        let url = PipelineFixture.url("avatar")
        let model = AvatarModel(images: FakeImages(images: [url: TestImages.makeImage(width: 1, height: 1, fill: 9).testBitmap]))
        await model.load(url)
        #expect(model.avatar?.testBitmap.pixels[0] == 9)
        await model.load(PipelineFixture.url("missing"))
        #expect(model.failed)
    }

    @Test @MainActor func theSameViewModelLoadsThroughAPipeline() async throws {
        let fixture = PipelineFixture()
        let model = AvatarModel(images: fixture.pipeline)
        let url = PipelineFixture.url("avatar")
        async let loaded: Void = model.load(url)
        try await fixture.loader.respond(to: url, with: PipelineFixture.imageData(fill: 4))
        await loaded
        #expect(model.avatar?.testBitmap.pixels[0] == 4)
        #expect(!model.failed)
        try await fixture.waitUntilIdle()
    }
}
