import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import ShashinCore

/// A local file loads only when the app names it as one (`ImageSource.file`): a `file:` URL given
/// as a URL is still refused, so a URL string from a user never reads a local file.
@Suite("Local files: an explicit source, never a URL string")
struct LocalFileSourceTests {
    @Test func anExplicitFileLoadsWithoutAllowingFileURLsAndIsNotCopiedToDisk() async throws {
        let folder = TemporaryFolder()
        let file = folder.url.appendingPathComponent("photo.timg")
        try TestImages.encode(width: 3, height: 2, fill: 6).write(to: file)
        let disk = InMemoryDataCache()
        let fixture = PipelineFixture { $0.diskCache = disk }
        #expect(fixture.pipeline.configuration.allowedSchemes == ["http", "https"])

        let response = try await fixture.pipeline.response(for: ImageRequest(source: .file(file)))
        #expect(response.image.testBitmap.pixels[0] == 6 && response.cacheType == .none)
        #expect(response.source.dataID == "file:" + file.standardizedFileURL.path)
        #expect(disk.keys.isEmpty, "a local file is on disk already")
        #expect(try await fixture.pipeline.response(for: ImageRequest(source: .file(file))).cacheType == .memory)

        await #expect(throws: ImagePipelineError.unsupportedScheme("file")) {
            try await fixture.pipeline.response(for: ImageRequest(url: file))
        }
        #expect(fixture.loader.startCount == 0)
    }

    @Test func aMissingFileIsThePlatformsFileDoesNotExist() async throws {
        let fixture = PipelineFixture()
        let missing = TemporaryFolder().url.appendingPathComponent("gone.jpg")
        do {
            _ = try await fixture.pipeline.response(for: ImageRequest(source: .file(missing)))
            Issue.record("a missing file loaded")
        } catch let error as URLError where error.code == .fileDoesNotExist {
            #expect(error.localizedDescription.contains(missing.path))
            #expect(error.underlyingError != nil)
        }
    }
}
