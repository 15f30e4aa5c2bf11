import Foundation
import Testing
@testable import ShashinCore

/// Keys made from image identifiers, checked over many generated inputs: unusual characters,
/// very long identifiers, and names that meet only after normalisation must neither collide
/// with one another nor with the keys of URLs, kept partial bodies or processed results.
@Suite("Cache keys from image identifiers")
struct CacheKeysPropertyTests {
    /// Characters apps put in identifiers, and some they should not.
    static let alphabet: [Character] = Array("aZ09-._~:/?#[]@!$&'()*+,;= %>\n\t\0\"\\é日本🙂") + ["e\u{301}"]

    static func randomID(_ generator: inout SplitMix, maxLength: Int = 24) -> String {
        let length = Int(generator.next() % UInt64(maxLength + 1))
        return String((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
    }

    @Test("distinct identifiers make distinct tokens, with no space, bracket, > or bare % in them")
    func tokensAreInjectiveAndClean() {
        var generator = SplitMix(seed: 30)
        var seen: [String: String] = [:]
        for _ in 0..<5_000 {
            let id = Self.randomID(&generator)
            let token = CacheKeys.token(forID: id)
            #expect(token.hasPrefix("image-id:"))
            let body = token.dropFirst("image-id:".count)
            #expect(!body.contains(" ") && !body.contains("[") && !body.contains(">") && !body.contains("\n"))
            #expect(body.unicodeScalars.allSatisfy { $0.isASCII })
            #expect(body.removingPercentEncoding == id, "the token reads back as the identifier")
            if let other = seen[token] { #expect(other == id, "\(other.debugDescription) and \(id.debugDescription) share \(token)") }
            seen[token] = id
        }
    }

    @Test("identifiers Swift finds equal (composed or decomposed accents) are one key")
    func canonicalEquivalentsMeet() {
        #expect(CacheKeys.token(forID: "caf\u{E9}") == CacheKeys.token(forID: "cafe\u{301}"))
        #expect(CacheKeys.token(forID: "\u{212B}") == CacheKeys.token(forID: "\u{C5}"), "Angstrom sign and Å")
        #expect(CacheKeys.token(forID: "cafe") != CacheKeys.token(forID: "caf\u{E9}"))
    }

    @Test("a token never equals a URL's, a partial body's or a processed result's key")
    func tokensKeepToTheirNamespace() {
        var generator = SplitMix(seed: 31)
        for _ in 0..<2_000 {
            let id = Self.randomID(&generator)
            let token = CacheKeys.token(forID: id)
            for prefix in ["http:", "https:", "partial ", "processed "] { #expect(!token.hasPrefix(prefix)) }
        }
        // An identifier that looks like a URL is still not that URL's key.
        let url = URL(string: "https://example.com/a.jpg")!
        let byURL = ImageRequest(url: url)
        var byID = ImageRequest(url: URL(string: "https://example.com/other.jpg")!)
        byID.imageID = url.absoluteString
        let keys = CacheKeys(rule: nil)
        #expect(keys.storedKey(for: byURL) != keys.storedKey(for: byID))
        #expect(keys.imageKey(for: byURL) != keys.imageKey(for: byID))
        #expect(keys.fetchKey(for: byURL) != keys.fetchKey(for: byID))
    }

    @Test("an identifier holding ' > ' or '[…]' does not meet a key with those processors or thumbnail")
    func separatorsInIdentifiersDoNotCollide() {
        struct Named: ImageProcessing {
            let identifier: String
            func process(_ image: PlatformImage) throws -> PlatformImage { image }
        }
        let url = URL(string: "https://example.com/a.jpg")!
        var plain = ImageRequest(url: url, processors: [Named(identifier: "resize")])
        plain.imageID = "a"
        var tricky = ImageRequest(url: url)
        tricky.imageID = "a > resize"
        var thumb = ImageRequest(url: url, thumbnail: ThumbnailOptions(maxPixelSize: 10))
        thumb.imageID = "a"
        var trickyThumb = ImageRequest(url: url)
        trickyThumb.imageID = "a [\(ThumbnailOptions(maxPixelSize: 10))]"
        #expect(plain.cacheKey.description != tricky.cacheKey.description)
        #expect(thumb.cacheKey.description != trickyThumb.cacheKey.description)
    }

    @Test("dropping signature items: URLs that differ only in them meet, any other difference keeps them apart")
    func droppingQueryItemsNormalises() {
        let keys = CacheKeys(rule: .droppingQueryItems(["Signature", "Expires"]))
        func key(_ text: String) -> String? { keys.storedKey(for: ImageRequest(url: URL(string: text)!)) }
        var generator = SplitMix(seed: 32)
        for _ in 0..<500 {
            let path = "/p\(generator.next() % 50).jpg"
            let width = generator.next() % 3
            let signed = { (n: UInt64) in "https://cdn.example.com\(path)?w=\(width)&Signature=\(n)&Expires=\(n &* 7)" }
            let a = generator.next(), b = generator.next()
            #expect(key(signed(a)) == key(signed(b)))
            // Order of the signature items, and a fragment, do not matter either.
            #expect(key(signed(a)) == key("https://cdn.example.com\(path)?Expires=1&w=\(width)&Signature=2#top"))
            #expect(key(signed(a)) != key("https://cdn.example.com\(path)?w=\(width + 1)&Signature=\(a)"))
            #expect(key(signed(a)) != key("https://cdn.example.com\(path)x?w=\(width)&Signature=\(a)"))
        }
        // Names are compared exactly: `signature` is another item, kept.
        #expect(key("https://e.com/a?signature=1") != key("https://e.com/a?signature=2"))
        // A URL with none of the items keeps its own key.
        #expect(key("https://e.com/a?w=1") == "https://e.com/a?w=1")
    }

    @Test("very long identifiers round-trip through a real disk cache and the memory cache")
    func veryLongIdentifiers() throws {
        let folder = TemporaryFolder()
        let disk = try DiskCache(directory: folder.url, limits: testLimits(), fileSystem: PosixFileSystem())
        let memory = MemoryCache()
        var generator = SplitMix(seed: 33)
        let long = String(repeating: "ü/?% ", count: 20_000) + Self.randomID(&generator)
        let almost = String(long.dropLast()) + "!"
        for (n, id) in [long, almost].enumerated() {
            var request = ImageRequest(url: URL(string: "https://example.com/\(n).jpg")!)
            request.imageID = id
            let key = try #require(CacheKeys(rule: nil).storedKey(for: request))
            try disk.store(Data([UInt8(n)]), metadata: nil, forKey: key)
            memory.store(TestImages.makeImage(width: 1, height: 1, fill: UInt8(n)), forKey: request.cacheKey)
        }
        for (n, id) in [long, almost].enumerated() {
            var request = ImageRequest(url: URL(string: "https://example.com/other.jpg")!)
            request.imageID = id
            let key = try #require(CacheKeys(rule: nil).storedKey(for: request))
            #expect(try disk.entry(forKey: key)?.data == Data([UInt8(n)]))
            #expect(memory.image(forKey: request.cacheKey).map { Bitmap(platformImage: $0)!.pixels.first } == UInt8(n))
        }
        #expect(disk.count == 2)
    }
}
