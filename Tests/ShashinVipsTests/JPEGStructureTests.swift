// The JPEGs are written by libvips, which exists only where Shashin decodes with it (Linux).
#if canImport(ShashinVips)
import Foundation
import Shashin
import ShashinCore
import Testing

/// `JPEGStructure.reachesEndOfImage`, the check that makes ImageIO refuse a truncated JPEG as
/// libjpeg does on Linux: measured here against files libvips writes and the Linux decoder reads.
@Suite("JPEG end-of-image check")
struct JPEGStructureTests {
    static func jpeg(progressive: Bool) throws -> Data {
        let bitmap = JPEGFiles.photo(width: 48, height: 32)
        return try JPEGFiles.encode(JPEGFiles.rgb(bitmap), width: 48, height: 32, bands: 3, progressive: progressive)
    }

    @Test(arguments: [false, true])
    func aWholeFileReachesItsEndEvenWithBytesAfterIt(progressive: Bool) throws {
        let whole = try Self.jpeg(progressive: progressive)
        #expect(JPEGStructure.reachesEndOfImage(whole))
        #expect(JPEGStructure.reachesEndOfImage(whole + Data([0, 0, 0x12, 0xFF])))
    }

    @Test(arguments: [false, true])
    func aFileCutAnywhereDoesNotReachItsEnd(progressive: Bool) throws {
        let whole = try Self.jpeg(progressive: progressive)
        let reached = (0..<whole.count).filter { JPEGStructure.reachesEndOfImage(whole.prefix($0)) }
        #expect(reached.isEmpty, "cuts judged whole: \(reached)")
        // The Linux decoder refuses the same cuts, so both platforms fail alike.
        for cut in [whole.count - 1, whole.count - 2, whole.count / 2] {
            #expect(throws: ImagePipelineError.self) { try VipsImageDecoder().decode(whole.prefix(cut), context: .init(format: .jpeg)) }
        }
    }

    /// An EXIF thumbnail is a whole JPEG inside an APP1 segment: its end marker is not the file's.
    @Test func anEmbeddedThumbnailsEndMarkerIsNotTheFilesEnd() throws {
        let whole = try Self.jpeg(progressive: false)
        let thumbnail: [UInt8] = [0xFF, 0xD8, 0xFF, 0xD9]
        let payload = Array("Exif".utf8) + [0, 0] + thumbnail
        let app1: [UInt8] = [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        let withThumbnail = Data(whole.prefix(2)) + Data(app1) + Data(whole.dropFirst(2))
        #expect(JPEGStructure.reachesEndOfImage(withThumbnail))
        #expect(!JPEGStructure.reachesEndOfImage(withThumbnail.prefix(2 + app1.count + 40)))
    }

    @Test func otherDataIsNotAWholeJPEG() {
        #expect(!JPEGStructure.reachesEndOfImage(Data()))
        #expect(!JPEGStructure.reachesEndOfImage(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])))
        #expect(!JPEGStructure.reachesEndOfImage(Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01, 0xFF, 0xD9]))) // a length below 2
    }
}
#endif
