import Foundation
import Testing
@testable import ShashinCore

/// Videos told from their first bytes (`VideoFormat`): the `ftyp` box's brands, QuickTime's
/// older atoms, and never an image in an ISO box (HEIC, AVIF) or bytes that only start alike.
@Suite("Video formats: sniffed from the ftyp box")
struct VideoFormatTests {
    @Test(arguments: [("isom", VideoFormat.mp4), ("mp42", .mp4), ("avc1", .mp4), ("qt  ", .mov), ("M4V ", .m4v), ("M4VP", .m4v)])
    func theMajorBrandNamesTheContainer(brand: String, format: VideoFormat) {
        #expect(VideoFormat(sniffing: TestVideos.ftyp(brand)) == format)
        #expect(ImageFormat(sniffing: TestVideos.ftyp(brand)) == nil)
    }

    @Test func anUnknownMajorBrandFallsBackOnTheCompatibleOnes() {
        #expect(VideoFormat(sniffing: TestVideos.ftyp("abcd", compatible: ["wxyz", "mp42"])) == .mp4)
        #expect(VideoFormat(sniffing: TestVideos.ftyp("abcd", compatible: ["wxyz"])) == nil)
    }

    @Test func compatibleBrandsAreReadOnlyWithinTheBox() {
        // The box says 16 bytes: the `mp42` after it belongs to the next box, not to the brands.
        #expect(VideoFormat(sniffing: TestVideos.ftyp("abcd", compatible: ["mp42"], boxSize: 16)) == nil)
    }

    @Test func imagesInAnISOBoxAreNotVideos() {
        #expect(VideoFormat(sniffing: TestVideos.ftyp("heic", compatible: ["mif1", "mp41"])) == nil)
        #expect(VideoFormat(sniffing: TestVideos.ftyp("avif", compatible: ["mif1", "isom"])) == nil)
    }

    @Test func olderQuickTimeFilesBeginWithAnAtom() {
        #expect(VideoFormat(sniffing: Data([0, 0, 0, 8] + Array("wide".utf8) + [0, 0, 0, 8] + Array("mdat".utf8))) == .mov)
        #expect(VideoFormat(sniffing: Data([0, 0, 0, 16] + Array("moov".utf8) + [UInt8](repeating: 0, count: 8))) == .mov)
    }

    @Test func shortDamagedOrOtherBytesAreNoVideo() {
        #expect(VideoFormat(sniffing: Data()) == nil)
        #expect(VideoFormat(sniffing: Data(Array("\0\0\0\u{18}ftyp".utf8))) == nil) // no brand
        #expect(VideoFormat(sniffing: TestImages.encode(width: 2, height: 2, fill: 1)) == nil)
        #expect(VideoFormat(sniffing: Data([0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0, count: 20))) == nil)
        // A box that claims 4 GB is read as far as the bytes go.
        #expect(VideoFormat(sniffing: TestVideos.ftyp("abcd", compatible: ["M4V "], boxSize: .max)) == .m4v)
        for length in 0..<TestVideos.mp4.count { _ = VideoFormat(sniffing: TestVideos.mp4.prefix(length)) }
    }

    /// Random bytes, and random bytes behind a real `ftyp` header, never trap the sniffer; a
    /// header with an image brand never reads as a video.
    @Test func randomBytesNeverTrapTheSniffer() {
        var state: UInt64 = 0x5DEECE66D
        func next() -> UInt8 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        for round in 0..<2_000 {
            let length = round % 80
            var bytes = (0..<length).map { _ in next() }
            if round.isMultiple(of: 2), bytes.count >= 8 { bytes.replaceSubrange(4..<8, with: Array("ftyp".utf8)) }
            let data = Data(bytes)
            if let format = VideoFormat(sniffing: data) {
                #expect(ImageFormat(sniffing: data) == nil, "\(format) read from image bytes")
            }
        }
    }

    @Test func theFileExtensionIsTheContainers() {
        #expect(VideoFormat.allCases.map(\.fileExtension) == ["mp4", "mov", "m4v"])
    }
}

/// Which frame a video decoder takes (`VideoFrameOptions`): the time within the video, the
/// tolerance, and the size to ask for.
@Suite("Video frames: which time and size to take")
struct VideoFrameOptionsTests {
    @Test func theFirstFrameIsTheDefault() {
        #expect(VideoFrameOptions.firstFrame.time == 0 && !VideoFrameOptions.firstFrame.isExact)
        #expect(VideoFrameOptions().clampedTime(duration: 10) == 0)
    }

    @Test func aTimeIsKeptWithinTheVideo() {
        #expect(VideoFrameOptions(time: 2.5).clampedTime(duration: 10) == 2.5)
        #expect(VideoFrameOptions(time: 12).clampedTime(duration: 10) == 10)
        #expect(VideoFrameOptions(time: -1).clampedTime(duration: 10) == 0)
        #expect(VideoFrameOptions(time: .nan).clampedTime(duration: 10) == 0)
        #expect(VideoFrameOptions(time: .infinity).clampedTime(duration: 10) == 0)
    }

    @Test func anUnknownDurationKeepsTheTime() {
        #expect(VideoFrameOptions(time: 3).clampedTime(duration: .nan) == 3)
        #expect(VideoFrameOptions(time: 3).clampedTime(duration: 0) == 3)
        #expect(VideoFrameOptions(time: -3).clampedTime(duration: .infinity) == 0)
    }

    @Test func anExactFrameHasNoTolerance() {
        #expect(VideoFrameOptions(time: 1, isExact: true).tolerance == 0)
        #expect(VideoFrameOptions(time: 1).tolerance == .infinity)
    }

    @Test func theDecoderIsAskedForTheThumbnailsLongestSideOnly() {
        #expect(VideoFrameOptions.maximumSide(for: nil) == nil)
        #expect(VideoFrameOptions.maximumSide(for: ThumbnailOptions(maxPixelSize: 300)) == 300)
        #expect(VideoFrameOptions.maximumSide(for: ThumbnailOptions(maxPixelSize: 300, allowsUpscaling: true)) == nil)
        #expect(VideoFrameOptions.maximumSide(for: ThumbnailOptions(size: CGSize(width: 100, height: 50), unit: .pixels)) == nil)
    }
}

/// Bytes in a file for the time of one call (`TemporaryFile`), for readers that need a file.
@Suite("Temporary files: there for the call, gone after")
struct TemporaryFileTests {
    @Test func theFileHoldsTheBytesDuringTheCallAndIsRemovedAfter() throws {
        let bytes = TestVideos.mp4
        let seen = try TemporaryFile.withContents(bytes, fileExtension: "mp4") { url -> URL in
            #expect(url.pathExtension == "mp4")
            #expect(try Data(contentsOf: url) == bytes)
            let permissions = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
            #expect(permissions == 0o600)
            return url
        }
        #expect(!FileManager.default.fileExists(atPath: seen.path))
    }

    @Test func theFileIsRemovedWhenTheCallThrows() {
        struct Failure: Error {}
        var seen: URL?
        #expect(throws: Failure.self) {
            try TemporaryFile.withContents(Data([1, 2, 3]), fileExtension: "mov") { url in
                seen = url
                throw Failure()
            }
        }
        #expect(seen.map { !FileManager.default.fileExists(atPath: $0.path) } == true)
    }

    @Test func aFolderThatCannotBeWrittenIsAnError() {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-folder-\(UUID().uuidString)")
        #expect(throws: (any Error).self) {
            try TemporaryFile.withContents(Data([1]), fileExtension: "mp4", in: missing) { _ in }
        }
    }
}
