import Foundation
import Testing
@testable import ShashinCore

/// A small custom format: "SHGR", width, height (one byte each), then one grey byte per pixel.
private struct GreyDecoder: ImageDecoding {
    static func encode(width: UInt8, height: UInt8, grey: [UInt8]) -> Data {
        Data(Array("SHGR".utf8) + [width, height] + grey)
    }
    static func matches(_ data: Data) -> Bool { data.starts(with: Array("SHGR".utf8)) }

    func decode(_ data: Data, context: ImageDecodingContext) throws -> PlatformImage {
        let bytes = [UInt8](data)
        guard bytes.count >= 6 else { throw ImagePipelineError.decodingFailed(format: nil, reason: "no header") }
        let width = Int(bytes[4]), height = Int(bytes[5])
        guard bytes.count == 6 + width * height else { throw ImagePipelineError.decodingFailed(format: nil, reason: "truncated") }
        return Bitmap(width: width, height: height, pixels: bytes.dropFirst(6).flatMap { [$0, $0, $0, 255] }).platformImage
    }
}

/// Decodes anything to a 1×1 bitmap whose red value names the decoder, and records the context.
private final class MarkerDecoder: ImageDecoding, @unchecked Sendable { // `contexts` behind its lock
    let marker: UInt8
    let contexts = Locked<[ImageDecodingContext]>([])
    init(_ marker: UInt8) { self.marker = marker }

    func decode(_ data: Data, context: ImageDecodingContext) throws -> PlatformImage {
        contexts.withLock { $0.append(context) }
        return Bitmap(width: 1, height: 1, pixels: [marker, 0, 0, 255]).platformImage
    }
}

@Suite("Decoder registry")
struct ImageDecoderRegistryTests {
    static let pngSignature = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0])
    static let gifSignature = Data("GIF89a......".utf8)

    @Test func aCustomFormatIsDecodedByTheDecoderRegisteredForIt() throws {
        var registry = ImageDecoderRegistry(defaultDecoder: MarkerDecoder(1))
        registry.register(GreyDecoder(), forFormatNamed: "shgr", matching: GreyDecoder.matches)
        let image = try registry.decode(GreyDecoder.encode(width: 2, height: 1, grey: [10, 200]), context: .init(format: nil))
        #expect(image.testBitmap.pixels == [10, 10, 10, 255, 200, 200, 200, 255])
        // Other data still goes to the default decoder.
        #expect(try registry.decode(Self.pngSignature, context: .init(format: .png)).testBitmap.pixels[0] == 1)
    }

    @Test func aDecoderRegisteredForABuiltInFormatOverridesTheDefaultForThatFormatOnly() throws {
        let fallback = MarkerDecoder(1), png = MarkerDecoder(2)
        var registry = ImageDecoderRegistry(defaultDecoder: fallback)
        registry.register(png, for: .png)
        #expect(try registry.decode(Self.pngSignature, context: .init(format: .png)).testBitmap.pixels[0] == 2)
        #expect(try registry.decode(Self.gifSignature, context: .init(format: .gif)).testBitmap.pixels[0] == 1)
        #expect(png.contexts.current.map(\.format) == [.png])
        registry.removeDecoder(for: .png)
        #expect(try registry.decode(Self.pngSignature, context: .init(format: .png)).testBitmap.pixels[0] == 1)
    }

    @Test func theFormatIsSniffedWhenTheContextHasNone() throws {
        var registry = ImageDecoderRegistry()
        registry.register(MarkerDecoder(3), for: .gif)
        #expect(try registry.decode(Self.gifSignature, context: .init(format: nil)).testBitmap.pixels[0] == 3)
    }

    @Test func aCustomFormatIsAskedBeforeTheBuiltInSniffingAndTheNewestRegistrationWins() throws {
        var registry = ImageDecoderRegistry(defaultDecoder: MarkerDecoder(1))
        registry.register(MarkerDecoder(4), forFormatNamed: "png-flavoured", matching: { $0.starts(with: [0x89, 0x50]) })
        registry.register(MarkerDecoder(5), forFormatNamed: "also-png", matching: { $0.starts(with: [0x89]) })
        let custom = try #require(registry.decoder(for: Self.pngSignature) as? MarkerDecoder)
        #expect(custom.marker == 5)
        let marker = MarkerDecoder(6)
        registry.register(marker, forFormatNamed: "png-flavoured", matching: { $0.starts(with: [0x89, 0x50]) })
        #expect(try registry.decode(Self.pngSignature, context: .init(format: .png)).testBitmap.pixels[0] == 6)
        #expect(marker.contexts.current.map(\.format) == [nil], "a custom format's decoder is not told a built-in format")
        registry.removeDecoder(forFormatNamed: "png-flavoured")
        registry.removeDecoder(forFormatNamed: "also-png")
        #expect(try registry.decode(Self.pngSignature, context: .init(format: .png)).testBitmap.pixels[0] == 1)
    }

    @Test func dataNoDecoderTakesFailsWithDecodingFailed() {
        let registry = ImageDecoderRegistry()
        #expect(registry.decoder(for: Self.pngSignature) == nil)
        #expect(throws: ImagePipelineError.decodingFailed(format: .png, reason: "No decoder is registered for png")) {
            try registry.decode(Self.pngSignature, context: .init(format: .png))
        }
        #expect(throws: ImagePipelineError.self) { try registry.decode(Data("hello".utf8), context: .init(format: nil)) }
    }

    @Test func theDecodersErrorsReachTheCallerUnchanged() {
        var registry = ImageDecoderRegistry()
        registry.register(GreyDecoder(), forFormatNamed: "shgr", matching: GreyDecoder.matches)
        #expect(throws: ImagePipelineError.decodingFailed(format: nil, reason: "truncated")) {
            try registry.decode(GreyDecoder.encode(width: 2, height: 2, grey: [1]), context: .init(format: nil))
        }
    }

    @Test func settingTheConfigurationsDecoderReplacesEveryRegistration() throws {
        var configuration = ImagePipeline.Configuration(decoder: MarkerDecoder(1))
        configuration.decoders.register(MarkerDecoder(2), for: .png)
        #expect(try configuration.decoder.decode(Self.pngSignature, context: .init(format: .png)).testBitmap.pixels[0] == 2)
        configuration.decoder = MarkerDecoder(7)
        #expect(try configuration.decoders.decode(Self.pngSignature, context: .init(format: .png)).testBitmap.pixels[0] == 7)
    }

    @Test func thePipelineDecodesACustomFormatThroughTheRegistry() async throws {
        let fixture = PipelineFixture { configuration in
            configuration.decoders.register(GreyDecoder(), forFormatNamed: "shgr", matching: GreyDecoder.matches)
        }
        let greyURL = PipelineFixture.url("grey.shgr"), testURL = PipelineFixture.url("test.timg")
        let grey = fixture.task(ImageRequest(url: greyURL))
        let test = fixture.task(ImageRequest(url: testURL))
        try await fixture.loader.respond(to: greyURL, with: GreyDecoder.encode(width: 1, height: 2, grey: [9, 99]))
        try await fixture.loader.respond(to: testURL, with: TestImages.encode(width: 1, height: 1, fill: 4))
        #expect(try await grey.image.testBitmap.pixels == [9, 9, 9, 255, 99, 99, 99, 255])
        #expect(try await test.image.testBitmap.pixels == [4, 4, 4, 4], "the fixture's default decoder still takes the rest")
        #expect(fixture.decoder.calls.current == 1)
    }
}

@Suite("Encoding options")
struct ImageEncodingOptionsTests {
    @Test func theFileExtensionPicksTheFormat() {
        #expect(ImageEncodingOptions(fileExtension: "JPG")?.format == .jpeg)
        #expect(ImageEncodingOptions(fileExtension: "jpeg")?.format == .jpeg)
        #expect(ImageEncodingOptions(fileExtension: "png")?.format == .png)
        #expect(ImageEncodingOptions(fileExtension: "webp", quality: 0.5) == .webp(quality: 0.5))
        #expect(ImageEncodingOptions(fileExtension: "avif")?.format == .avif)
        #expect(ImageEncodingOptions(fileExtension: "txt") == nil)
        #expect(ImageEncodingOptions(fileExtension: "") == nil)
    }

    @Test func theDescriptionIsStableAndNamesWhatChangesTheOutput() {
        #expect(ImageEncodingOptions.jpeg(quality: 0.8).description == "jpeg(q=0.8)")
        #expect(ImageEncodingOptions.png.description == "png")
        #expect(ImageEncodingOptions.webp(lossless: true).description == "webp(lossless)")
        #expect(ImageEncodingOptions.webp(quality: 0.85) != ImageEncodingOptions.webp(lossless: true))
    }
}
