import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageServer
import Shashin
import Testing

/// A video over real HTTP: sniffed as one from its `ftyp` box whatever its URL or `Content-Type`
/// says, and on Linux refused with `videoNotSupported`, which says video is not supported there.
@Suite("Over HTTP: a video is sniffed, and on Linux refused with a typed error")
struct LiveVideoTests {
    /// An MP4's first boxes: `ftyp` (`isom`, compatible with `mp41`), then an `mdat` of 4 KB of
    /// zeros (no frame a decoder could read).
    static let mp4Shaped: Data = {
        var bytes: [UInt8] = [0, 0, 0, 24] + Array("ftyp".utf8) + Array("isom".utf8) + [0, 0, 2, 0]
        bytes += Array("isom".utf8) + Array("mp41".utf8)
        bytes += [0, 0, 0x10, 0x08] + Array("mdat".utf8) + [UInt8](repeating: 0, count: 4096)
        return Data(bytes)
    }()

    @Test("an MP4 served over HTTP fails with a typed video error", arguments: LoaderFactory.all)
    func mp4OverHTTP(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        fixture.server.setRoute("/clip", .data(Self.mp4Shaped, contentType: "video/mp4"))
        let request = ImageRequest(url: fixture.server.url("/clip"), thumbnail: .init(maxPixelSize: 100))
        do {
            _ = try await fixture.pipeline.response(for: request)
            Issue.record("a video without frames decoded")
        } catch let error as ImagePipelineError {
            #if os(Linux)
            #expect(error == .videoNotSupported(.mp4))
            #expect(error.description.contains("video is not supported on Linux"))
            #else
            guard case .videoDecodingFailed(.mp4, _) = error else {
                Issue.record("expected videoDecodingFailed, got \(error)")
                return
            }
            #endif
        }
        #expect(fixture.server.requestCount(for: "/clip") == 1)
        try await fixture.finish()
    }

    @Test("the default configuration's registry routes a video to its video decoder, where one exists")
    func defaultRegistry() {
        let configuration = ImagePipeline.Configuration()
        #if os(Linux)
        #expect(configuration.decoders.videoDecoder == nil)
        #expect(configuration.decoders.decoder(for: Self.mp4Shaped) == nil)
        #else
        #expect(configuration.decoders.videoDecoder is AVFoundationVideoDecoder)
        #endif
    }
}
