import Foundation
import Testing
@testable import ShashinCore

/// Processed results in the disk cache (`DiskCachePolicy.processed`) follow the original's HTTP
/// rules, whichever way the original reached the processor.
@Suite("Processed results on disk")
struct PipelineProcessedStoreTests {
    func fixture(_ storage: InMemoryDataCache, cacheControl: String) -> (PipelineFixture, ScriptedHTTPLoader) {
        let loader = ScriptedHTTPLoader { _ in
            .init(headers: ["Cache-Control": cacheControl], body: TestImages.encode(width: 2, height: 2, fill: 4))
        }
        let fixture = PipelineFixture { configuration in
            configuration.dataLoader = loader
            configuration.diskCache = storage
            configuration.diskCachePolicy = .processed
            configuration.encoder = TestEncoder()
        }
        return (fixture, loader)
    }

    @Test func aResultProcessedFromAnOriginalInMemoryIsNotStoredWithoutTheOriginalsRules() async throws {
        let storage = InMemoryDataCache()
        let (fixture, _) = fixture(storage, cacheControl: "no-store")
        let url = PipelineFixture.url("private")
        _ = try await fixture.pipeline.image(for: url) // the original, decoded: in memory, nothing on disk
        let processed = ImageRequest(url: url, processors: [CountingProcessor("p")])
        #expect(try await fixture.pipeline.response(for: processed).cacheType != .disk)
        try await eventually { fixture.pipeline.backgroundWorkCount == 0 }
        // A result stored without the original's metadata would be served forever, `no-store` or not.
        #expect(storage.keys.isEmpty)
    }

    @Test func aResultProcessedFromADownloadIsStoredAndServedFromDisk() async throws {
        let storage = InMemoryDataCache()
        let (fixture, _) = fixture(storage, cacheControl: "max-age=600")
        let processed = ImageRequest(url: PipelineFixture.url("public"), processors: [CountingProcessor("p")])
        _ = try await fixture.pipeline.image(for: processed)
        try await eventually { fixture.pipeline.backgroundWorkCount == 0 }
        #expect(storage.keys.count == 1)
        let (again, loader) = self.fixture(storage, cacheControl: "max-age=600")
        #expect(try await again.pipeline.response(for: processed).cacheType == .disk)
        #expect(loader.requests.isEmpty)
    }

    /// Writes PNG only, as ImageIO writes no WebP; records the formats asked for.
    final class PNGOnlyEncoder: ImageEncoding, @unchecked Sendable { // `asked` behind its lock
        struct Unsupported: Error {}
        let asked = Locked<[ImageFormat]>([])
        func encode(_ image: PlatformImage, options: ImageEncodingOptions) throws -> Data {
            asked.withLock { $0.append(options.format) }
            guard options.format == .png else { throw Unsupported() }
            return try TestEncoder().encode(image, options: options)
        }
    }

    @Test func aResultTheEncoderCannotWriteInTheOriginalsFormatIsStoredAsPNG() throws {
        let encoder = PNGOnlyEncoder()
        let image = TestImages.makeImage(width: 3, height: 2, fill: 9)
        let data = try #require(ProcessedImageStore.encode(image, as: .webp, with: encoder, quality: 0.8))
        #expect(encoder.asked.current == [.webp, .png])
        #expect(try TestDecoder().decode(data, context: .init(format: nil)).testBitmap == image.testBitmap)
    }

    @Test func aResultNoFormatCanHoldIsNotStored() {
        struct RefusingEncoder: ImageEncoding {
            struct Refused: Error {}
            func encode(_ image: PlatformImage, options: ImageEncodingOptions) throws -> Data { throw Refused() }
        }
        #expect(ProcessedImageStore.encode(TestImages.makeImage(width: 1, height: 1), as: .webp,
                                           with: RefusingEncoder(), quality: 0.8) == nil)
    }
}
