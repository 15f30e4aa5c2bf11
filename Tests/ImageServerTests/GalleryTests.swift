import Foundation
import Testing
import Shashin
import ImageServer

@Suite("Gallery")
struct GalleryTests {
    @Test func isDeterministicForASeed() {
        #expect(Gallery(count: 300, seed: 4) == Gallery(count: 300, seed: 4))
        #expect(Gallery(count: 300, seed: 4) != Gallery(count: 300, seed: 5))
        #expect(Gallery(count: 300, seed: 4).count == 300)
        #expect(Gallery(count: 10, seed: 4).images == Array(Gallery(count: 300, seed: 4).images.prefix(10)))
    }

    @Test func mixesFormatsAndSizes() {
        let gallery = Gallery(count: 300, seed: 1)
        let formats = Dictionary(grouping: gallery.images, by: \.format).mapValues(\.count)
        #expect(formats[.jpeg] ?? 0 >= 140)
        #expect(formats[.png] ?? 0 >= 50)
        #expect(formats[.webp] ?? 0 >= 50)
        #expect(formats[.gif] ?? 0 >= 25)
        let large = gallery.images.filter { max($0.width, $0.height) == 4000 }
        #expect(large.count == 12)
        let modest = gallery.images.filter { max($0.width, $0.height) <= 1024 }
        #expect(modest.count > 200)
        #expect(gallery.images.allSatisfy { min($0.width, $0.height) >= 16 })
        #expect(Set(gallery.paths).count == 300)
    }

    @Test func pregenerateEncodesEveryImage() async throws {
        let generator = ImageGenerator()
        let gallery = Gallery(count: 12, seed: 9)
        let small = gallery.images.filter { $0.width * $0.height <= 1_100_000 }
        try await generator.pregenerate(small, maxConcurrency: 2)
        #expect(small.allSatisfy(generator.isCached))
    }

    @Test func servesItsImagesFromTheServer() async throws {
        let generator = ImageGenerator()
        try await withServer(ImageServer(generator: generator)) { server in
            let gallery = Gallery(count: 5, seed: 2)
            let urls = gallery.urls(on: server)
            #expect(urls.count == 5)
            let spec = try #require(gallery.images.min { $0.width * $0.height < $1.width * $1.height })
            let (data, response) = try await fetch(server.url(for: spec))
            #expect(response.statusCode == 200)
            #expect(ImageFormat(sniffing: data) == spec.format)
        }
    }
}
