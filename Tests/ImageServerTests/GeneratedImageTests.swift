import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import Shashin
import ImageServer

@Suite("Generated images")
struct GeneratedImageTests {
    @Test func specPathRoundTrips() {
        let spec = ImageSpec(format: .webp, width: 640, height: 480, seed: 42)
        #expect(spec.path == "/gen/42-640x480.webp")
        #expect(ImageSpec(path: spec.path) == spec)
        #expect(ImageSpec(path: "42-640x480.webp") == spec)
        #expect(ImageSpec(path: "/gen/1-10x10.jpeg")?.format == .jpeg)
        for bad in ["/gen/1-10x10.bmp", "/gen/x-10x10.jpg", "/gen/1-10.jpg", "/gen/1-0x10.jpg",
                    "/gen/1-20000x10.png", "/gen/1-10000x10000.png", "/gen/a/1-10x10.png", "/gen/1-10x10"] {
            #expect(ImageSpec(path: bad) == nil, "\(bad)")
        }
    }

    @Test func generatedImageIsIdenticalOnEveryRequest() async throws {
        try await withServer { server in
            let url = server.url("/gen/7-320x240.jpg")
            let (first, response) = try await fetch(url)
            let (second, _) = try await fetch(url)
            #expect(response.statusCode == 200)
            #expect(!first.isEmpty)
            #expect(first == second)
        }
    }

    @Test func paintingIsDeterministicAndSeedDependent() {
        let a = ImageSpec(format: .png, width: 50, height: 40, seed: 1).makeBitmap()
        let b = ImageSpec(format: .png, width: 50, height: 40, seed: 1).makeBitmap()
        let c = ImageSpec(format: .png, width: 50, height: 40, seed: 2).makeBitmap()
        #expect(a == b)
        #expect(a != c)
        #expect(a.width == 50 && a.height == 40)
        #expect(a.pixels.enumerated().allSatisfy { $0.offset % 4 != 3 || $0.element == 255 })
    }

    @Test(arguments: [ImageFormat.jpeg, .png, .webp, .gif])
    func servesEachFormatWithItsTypeAndSize(format: ImageFormat) async throws {
        try await withServer { server in
            let spec = ImageSpec(format: format, width: 120, height: 90, seed: 5)
            let (data, response) = try await fetch(server.url(for: spec))
            #expect(response.statusCode == 200)
            #expect(ImageFormat(sniffing: data) == format)
            #expect(response.value(forHTTPHeaderField: "Content-Type") == spec.mimeType)
            #expect(response.value(forHTTPHeaderField: "ETag") != nil)
            let image = try PlatformImageDecoder().decode(data, context: ImageDecodingContext(format: format))
            #expect(pixelSize(of: image) == (120, 90))
        }
    }

    // Exact where the decoder gives straight alpha (libvips); ImageIO may premultiply, which
    // rounds the colour of semi-transparent pixels.
    #if !canImport(ImageIO)
    @Test func pngDecodesToThePaintedPixels() async throws {
        try await withServer { server in
            let spec = ImageSpec(format: .png, width: 33, height: 21, seed: 11)
            let (data, _) = try await fetch(server.url(for: spec))
            let image = try PlatformImageDecoder().decode(data, context: ImageDecodingContext(format: .png))
            #expect(Bitmap(platformImage: image) == spec.makeBitmap())
        }
    }
    #endif

    @Test func generatedImagesAnswer304ToTheirETag() async throws {
        try await withServer { server in
            let url = server.url("/gen/3-64x64.png")
            let (_, first) = try await fetch(url)
            let etag = try #require(first.value(forHTTPHeaderField: "ETag"))
            let (data, second) = try await fetch(url, headers: ["If-None-Match": etag])
            #expect(second.statusCode == 304)
            #expect(data.isEmpty)
        }
    }

    @Test func malformedGeneratedPathIs404() async throws {
        try await withServer { server in
            let (_, response) = try await fetch(server.url("/gen/nope.jpg"))
            #expect(response.statusCode == 404)
        }
    }

    @Test func encodesEachImageOnce() async throws {
        let generator = ImageGenerator()
        let spec = ImageSpec(format: .jpeg, width: 200, height: 100, seed: 8)
        #expect(!generator.isCached(spec))
        async let a = generator.data(for: spec)
        async let b = generator.data(for: spec)
        let (first, second) = try await (a, b)
        #expect(first == second)
        #expect(generator.isCached(spec))
        generator.removeAll()
        #expect(!generator.isCached(spec))
    }

    @Test func keepsEncodedImagesInItsDirectoryForTheNextProcess() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imagegen-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let spec = ImageSpec(format: .webp, width: 40, height: 30, seed: 12)
        let first = try await ImageGenerator(directory: directory).data(for: spec)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files == ["12-40x30-q85.webp"])
        // A generator whose encoder always fails still serves the image: it comes from disk.
        let second = try await ImageGenerator(encoder: FailingEncoder(), directory: directory).data(for: spec)
        #expect(second == first)
    }

    @Test func doesNotCacheAFailedEncoding() async throws {
        let generator = ImageGenerator(encoder: FailingEncoder())
        let spec = ImageSpec(format: .png, width: 4, height: 4, seed: 1)
        await #expect(throws: FailingEncoder.Failure.self) { try await generator.data(for: spec) }
        #expect(!generator.isCached(spec))
    }

    @Test func answers500WhenAnImageCannotBeEncoded() async throws {
        try await withServer(ImageServer(generator: ImageGenerator(encoder: FailingEncoder()))) { server in
            let (_, response) = try await fetch(server.url("/gen/1-8x8.png"))
            #expect(response.statusCode == 500)
            #expect(await eventually { server.inFlight == 0 })
        }
    }

    @Test func jpegSizeIsPhotoLike() async throws {
        // Noise keeps the encoder honest: a 1000×750 JPEG at quality 0.85 weighs tens of KB,
        // not the few KB a flat gradient would.
        let data = try await ImageGenerator.shared.data(for: ImageSpec(format: .jpeg, width: 1000, height: 750, seed: 1))
        #expect(data.count > 40_000)
        #expect(data.count < 1_500_000)
    }
}

struct FailingEncoder: ImageEncoding {
    struct Failure: Error {}
    func encode(_ image: PlatformImage, options: ImageEncodingOptions) throws -> Data { throw Failure() }
}
