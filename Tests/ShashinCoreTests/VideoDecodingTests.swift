import Foundation
import Testing
@testable import ShashinCore

/// Makes a 4×2 "frame" of any video, recording the contexts it was given: the stand-in for a
/// platform's video decoder (AVFoundation's runs only on Apple platforms).
private final class FrameDecoder: ImageDecoding, @unchecked Sendable { // `contexts` behind its lock
    let contexts = Locked<[ImageDecodingContext]>([])

    func decode(_ data: Data, context: ImageDecodingContext) throws -> PlatformImage {
        contexts.withLock { $0.append(context) }
        guard let format = VideoFormat(sniffing: data) else {
            throw ImagePipelineError.decodingFailed(format: context.format, reason: "not a video")
        }
        let size = context.thumbnail?.targetSize(width: 4, height: 2) ?? (width: 4, height: 2)
        let red: UInt8 = format == .mp4 ? 40 : 80
        return Bitmap(width: size.width, height: size.height, pixels: Array(repeating: red, count: size.width * size.height * 4)).platformImage
    }
}

/// Videos in the decoder registry (`ImageDecoderRegistry.videoDecoder`): a sniffed video goes to
/// the video decoder; without one (Linux) it fails with `videoNotSupported`, which says so.
@Suite("Video decoding: a video's frame, or a typed error where video is not supported")
struct VideoDecodingTests {
    let context = ImageDecodingContext(format: nil, thumbnail: nil)

    @Test func withoutAVideoDecoderAVideoFailsWithVideoNotSupported() {
        let registry = ImageDecoderRegistry(defaultDecoder: TestDecoder())
        #expect(throws: ImagePipelineError.videoNotSupported(.mp4)) { try registry.decode(TestVideos.mp4, context: context) }
        #expect(throws: ImagePipelineError.videoNotSupported(.mov)) { try registry.decode(TestVideos.ftyp("qt  "), context: context) }
        #expect(registry.decoder(for: TestVideos.mp4) == nil)
    }

    @Test func theErrorSaysVideoIsNotSupportedOnLinux() {
        let description = ImagePipelineError.videoNotSupported(.mp4).description
        #expect(description.contains("mp4 video"))
        #if os(Linux)
        #expect(description.contains("video is not supported on Linux"))
        #endif
    }

    @Test func aVideoGoesToTheVideoDecoderAndImagesDoNot() throws {
        let frames = FrameDecoder()
        var registry = ImageDecoderRegistry(defaultDecoder: TestDecoder())
        registry.videoDecoder = frames
        #expect(try registry.decode(TestVideos.mp4, context: context).testBitmap.pixels[0] == 40)
        #expect(try registry.decode(TestVideos.ftyp("M4V "), context: context).testBitmap.pixels[0] == 80)
        #expect(try registry.decode(TestImages.encode(width: 1, height: 1, fill: 5), context: context).testBitmap.pixels[0] == 5)
        #expect(frames.contexts.current.count == 2)
        #expect(registry.decoder(for: TestVideos.mp4) is FrameDecoder)
        #expect(registry.decoder(for: TestImages.encode(width: 1, height: 1, fill: 5)) is TestDecoder)
    }

    @Test func aCustomFormatClaimsItsDataBeforeTheVideoDecoder() throws {
        var registry = ImageDecoderRegistry(defaultDecoder: nil)
        registry.videoDecoder = FrameDecoder()
        registry.register(TestDecoder(), forFormatNamed: "claims-everything") { _ in true }
        #expect(throws: ImagePipelineError.decodingFailed(format: nil, reason: "not a test image")) {
            try registry.decode(TestVideos.mp4, context: context)
        }
    }

    @Test func aVideoFromADataSourceIsDecodedToItsFrameAtTheRequestsThumbnail() async throws {
        let frames = FrameDecoder()
        let fixture = PipelineFixture { $0.decoders.videoDecoder = frames }
        let request = ImageRequest(source: .data(id: "clip-1", { TestVideos.mp4 }), thumbnail: .init(maxPixelSize: 2))
        let response = try await fixture.pipeline.response(for: request)
        #expect(response.image.pixelWidth == 2 && response.image.pixelHeight == 1)
        #expect(frames.contexts.current.map(\.thumbnail) == [ThumbnailOptions(maxPixelSize: 2)])
    }

    @Test func withoutAVideoDecoderThePipelineFailsWithVideoNotSupported() async {
        let fixture = PipelineFixture()
        let request = ImageRequest(source: .data(id: "clip-2", { TestVideos.ftyp("qt  ") }))
        await #expect(throws: ImagePipelineError.videoNotSupported(.mov)) { try await fixture.pipeline.response(for: request) }
    }
}
