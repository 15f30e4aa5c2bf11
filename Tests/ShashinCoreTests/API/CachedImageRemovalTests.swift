import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import ShashinCore

/// Removing an image is `async`, and finds its processed variants on disk through the disk
/// cache's group index: every size and processing of the image goes, no other image's does.
@Suite("Removing an image: every layer, its variants through the group index")
struct CachedImageRemovalTests {
    @Test func aGroupsEntriesGoTogetherAndNoOthers() throws {
        let folder = TemporaryFolder()
        let cache = try DiskCache(directory: folder.url, limits: testLimits(inlineThreshold: 64), fileSystem: PosixFileSystem())
        try cache.store(payload("a-small", size: 10), metadata: nil, forKey: "processed a small", group: "a")
        try cache.store(payload("a-large", size: 300), metadata: nil, forKey: "processed a large", group: "a")
        try cache.store(payload("b", size: 10), metadata: nil, forKey: "processed b", group: "b")
        try cache.store(payload("a", size: 10), metadata: nil, forKey: "a")
        try cache.removeEntries(inGroup: "a")
        #expect(!cache.containsEntry(forKey: "processed a small") && !cache.containsEntry(forKey: "processed a large"))
        #expect(cache.containsEntry(forKey: "processed b") && cache.containsEntry(forKey: "a"))
        #expect(cache.count == 2 && folder.dataFiles().isEmpty, "the large variant's file went with its row")
        try cache.removeEntries(inGroup: "nobody")
        #expect(cache.count == 2)
    }

    @Test func removeCachedImageTakesEveryVariantOfTheImageFromMemoryAndDisk() async throws {
        let folder = TemporaryFolder()
        let disk = try DiskCache(directory: folder.url, limits: testLimits(), fileSystem: PosixFileSystem())
        let loader = ScriptedHTTPLoader { _ in .init(headers: ["Cache-Control": "max-age=3600"], body: TestImages.encode(width: 8, height: 8, fill: 3)) }
        var configuration = ImagePipeline.Configuration(decoder: TestDecoder(), encoder: TestEncoder())
        configuration.dataLoader = loader
        configuration.diskCache = disk
        configuration.diskCachePolicy = .all
        let pipeline = ImagePipeline(configuration: configuration)
        let photo = URL(string: "https://images.test/photo.timg")!, other = URL(string: "https://images.test/other.timg")!
        let variants = [ImageRequest(url: photo, thumbnail: .init(maxPixelSize: 4)), ImageRequest(url: photo, thumbnail: .init(maxPixelSize: 2)),
                        ImageRequest(url: other, thumbnail: .init(maxPixelSize: 4))]
        for request in variants { _ = try await pipeline.image(for: request) }
        try await eventually { pipeline.backgroundWorkCount == 0 }
        disk.flush()
        #expect(disk.count == 5, "two originals and three processed results")

        try await pipeline.removeCachedImage(for: ImageRequest(url: photo))
        #expect(pipeline.cachedImage(for: variants[0]) == nil && pipeline.cachedImage(for: variants[1]) == nil)
        #expect(pipeline.cachedImage(for: variants[2]) != nil, "another image stays in memory")
        #expect(Set(try disk.entries().map(\.key)) == [HTTPCache.storageKey(for: other)!, "processed " + variants[2].cacheKey.description])
    }
}
