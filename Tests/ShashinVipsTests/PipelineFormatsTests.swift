// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Shashin
import Testing

/// The default configuration's decoders, through the whole pipeline.
@Suite struct PipelineFormats {
    static let gifURL = URL(string: "https://images.test/anim.gif")!
    static let pngURL = URL(string: "https://images.test/still.png")!
    static let jpegURL = URL(string: "https://images.test/still.jpg")!

    static func pipeline(_ bodies: [URL: Data], _ configure: (inout ImagePipeline.Configuration) -> Void = { _ in }) -> ImagePipeline {
        var configuration = ImagePipeline.Configuration()
        configuration.dataLoader = FixedDataLoader(bodies: bodies)
        configure(&configuration)
        return ImagePipeline(configuration: configuration)
    }

    @Test func theDefaultConfigurationHasThePlatformsDecoderAndEncoder() {
        let configuration = ImagePipeline.Configuration()
        #expect(configuration.decoders.defaultDecoder is VipsImageDecoder)
        #expect(configuration.encoder is VipsImageEncoder)
    }

    @Test func anAnimatedGIFsResponseCarriesTheAnimationFromTheNetworkTheMemoryCacheAndProcessors() async throws {
        let gif = try AnimatedFiles.make(.gif, frames: AnimatedImages.frames)
        let pipeline = Self.pipeline([Self.gifURL: gif])
        let request = ImageRequest(url: Self.gifURL)
        let loaded = try await pipeline.response(for: request)
        #expect(loaded.cacheType == .none)
        #expect(loaded.animation?.frameCount == 4)
        #expect(loaded.animation?.data == gif)
        guard case .cached(let cached) = pipeline.loadImage(request) else {
            Issue.record("expected a memory hit")
            return
        }
        #expect(cached.animation?.frameCount == 4)
        let processed = try await pipeline.response(for: ImageRequest(url: Self.gifURL, processors: [.resize(width: 20)]))
        #expect(processed.image.width == 20)
        #expect(processed.animation?.data == gif, "an animating view still gets the original")
    }

    @Test func aStillImagesResponseHasNoAnimation() async throws {
        let png = try VipsImageEncoder().encodeBitmap(TestImages.gradient(width: 8, height: 8), as: .png, quality: 1)
        let response = try await Self.pipeline([Self.pngURL: png]).response(for: ImageRequest(url: Self.pngURL))
        #expect(response.animation == nil)
    }

    @Test func anAppCanReplaceTheDecoderOfOneBuiltInFormat() async throws {
        let png = try VipsImageEncoder().encodeBitmap(TestImages.gradient(width: 8, height: 8), as: .png, quality: 1)
        let jpeg = try VipsImageEncoder().encodeBitmap(TestImages.gradient(width: 8, height: 8), as: .jpeg, quality: 0.9)
        let pipeline = Self.pipeline([Self.pngURL: png, Self.jpegURL: jpeg]) { configuration in
            configuration.decoders.register(AnonymousDecoder { _, _ in Bitmap(width: 1, height: 1, pixels: [1, 2, 3, 4]) }, for: .png)
        }
        #expect(try await pipeline.image(for: Self.pngURL).pixels == [1, 2, 3, 4])
        #expect(try await pipeline.image(for: Self.jpegURL).width == 8, "JPEG still goes to libvips")
    }
}

/// A decoder from a closure, for tests.
private struct AnonymousDecoder: ImageDecoding {
    let body: @Sendable (Data, ImageDecodingContext) throws -> PlatformImage
    init(_ body: @escaping @Sendable (Data, ImageDecodingContext) throws -> PlatformImage) { self.body = body }
    func decode(_ data: Data, context: ImageDecodingContext) throws -> PlatformImage { try body(data, context) }
}
#endif
