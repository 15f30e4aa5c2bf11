// libvips and the direct libjpeg-turbo path exist only where Shashin decodes with them (Linux).
#if canImport(ShashinVips)
import Foundation
@testable import ShashinCore
@testable import ShashinVips
import Testing

/// The buffered-image session (`JPEGPreviewSession`): each preview is the picture the direct path
/// makes from scratch of the same prefix, the final image is the direct path's, whatever the
/// bytes and however they arrive, and nothing is kept once the session ends.
@Suite(.serialized) struct JPEGPreviewSessionTests {
    /// A progressive 4:2:0 JPEG as libvips writes it (libjpeg's standard ten-scan progression).
    static func progressive(width: Int = 640, height: Int = 480, quality: Int32 = 85) throws -> Data {
        try JPEGFiles.encode(JPEGFiles.rgb(JPEGFiles.photo(width: width, height: height)), width: width, height: height,
                             bands: 3, quality: quality, progressive: true)
    }

    /// What the pipeline's feed hands over for `data` arriving in chunks of `chunk` bytes: the
    /// bytes through the marker after each newly completed scan, and where that scan ends.
    static func scans(_ data: Data, chunk: Int) -> [(data: Data, scanEnd: Int)] {
        let handed = Locked<[(data: Data, scanEnd: Int)]>([])
        let feed = PreviewFeed { prefix, scanEnd in handed.withLock { $0.append((prefix, scanEnd)) } }
        for start in stride(from: 0, to: data.count, by: chunk) {
            feed.receive(data.subdata(in: start..<min(data.count, start + chunk)))
        }
        return handed.current
    }

    /// The direct path's preview of `prefix`, decoded from scratch.
    static func fromScratch(_ prefix: Data, _ context: ImageDecodingContext) -> Bitmap? {
        guard case .decoded(let bitmap)? = prefix.withUnsafeBytes({ try? DirectJPEGDecoder.decode($0, context: context, preview: true) }) else {
            return nil
        }
        return bitmap
    }

    static func bitmap(_ image: PlatformImage?) -> Bitmap? { image }

    /// Thumbnails the DCT alone makes (1/8 of 640 is 80), ones resampled after it, full size, and
    /// with each orientation that swaps the sides.
    @Test(arguments: [80, 97, 300, 640] as [Int?] + [nil])
    func eachPreviewIsTheDirectPathsPreviewOfThatPrefixAndTheFinalIsItsImage(maxPixelSize: Int?) throws {
        let data = try Self.progressive()
        let context = ImageDecodingContext(format: .jpeg, thumbnail: maxPixelSize.map { ThumbnailOptions(maxPixelSize: $0) })
        let scans = Self.scans(data, chunk: 1)
        #expect(scans.count == 9) // ten scans; the last one's end is the end of the image, no preview
        let session = try #require(JPEGPreviewSession(context: context))
        for scan in scans {
            // With bytes of the next scan too, as a chunk that ends a scan may hold: only the
            // complete scans are shown.
            let received = data.prefix(scan.scanEnd + 2 + 700)
            let preview = try #require(Self.bitmap(session.preview(received, scanEnd: scan.scanEnd)), "scan ending at \(scan.scanEnd)")
            let reference = try #require(Self.fromScratch(scan.data.prefix(scan.scanEnd), context))
            #expect(preview == reference, "scan ending at \(scan.scanEnd): \(JPEGFiles.difference(preview, reference))")
        }
        let final = try #require(Self.bitmap(session.finish(data)))
        #expect(final == (try VipsImageDecoder().decodeBitmap(data, context: context)))
        #expect(!session.isOpen)
    }

    /// EXIF orientations 6 (sides swapped) and 3, and an ICC profile the direct path converts to
    /// sRGB: the session applies the same steps after its output passes.
    @Test(arguments: [3, 6])
    func orientationAndProfileAreAppliedAsTheDirectPathAppliesThem(orientation: Int) throws {
        let plain = try Self.progressive()
        var data = JPEGFiles.withICCProfile(plain, profile: DisplayP3Profile.bytes(description: "P3 session"))
        data = CraftedFiles.jpeg(data, withOrientation: UInt16(orientation))
        let context = ImageDecodingContext(format: .jpeg, thumbnail: ThumbnailOptions(maxPixelSize: 200))
        let session = try #require(JPEGPreviewSession(context: context))
        let scans = Self.scans(data, chunk: 4096)
        #expect(scans.count >= 3)
        for scan in scans {
            let preview = Self.bitmap(session.preview(scan.data, scanEnd: scan.scanEnd))
            #expect(preview != nil && preview == Self.fromScratch(scan.data.prefix(scan.scanEnd), context))
        }
        let final = try #require(Self.bitmap(session.finish(data)))
        #expect(orientation == 6 ? final.width == 150 && final.height == 200 : final.width == 200 && final.height == 150)
        #expect(final == (try VipsImageDecoder().decodeBitmap(data, context: context)))
    }

    /// libjpeg suspends at every byte (the session is shown one more byte each call): every
    /// preview it makes is the from-scratch preview of one of the scans, it makes one for nearly
    /// every scan, and the final image is unchanged.
    @Test func bytesShownOneAtATimeGiveTheSamePictures() throws {
        let data = try Self.progressive(width: 320, height: 240)
        let context = ImageDecodingContext(format: .jpeg, thumbnail: ThumbnailOptions(maxPixelSize: 100))
        let references = Self.scans(data, chunk: 1).compactMap { Self.fromScratch($0.data.prefix($0.scanEnd), context) }
        let session = try #require(JPEGPreviewSession(context: context))
        var shown: [Bitmap] = []
        for end in 0..<(data.count - 2) {
            if let preview = Self.bitmap(session.preview(data.prefix(end + 2), scanEnd: end)) {
                #expect(references.contains(preview), "the preview after \(end) bytes is no scan's picture")
                shown.append(preview)
            }
        }
        #expect(session.isOpen && shown.count >= references.count - 1)
        #expect(Self.bitmap(session.finish(data)) == (try VipsImageDecoder().decodeBitmap(data, context: context)))
    }

    /// A marker damaged after the third scan: the previews before it are made, the ones after it
    /// are not, nothing crashes, and the session ends, leaving the final decode to the decoder.
    @Test func aDamagedMarkerEndsTheSessionWithoutACrash() throws {
        let data = try Self.progressive(width: 320, height: 240)
        let scans = Self.scans(data, chunk: 512)
        var damaged = data
        let third = scans[2].scanEnd
        damaged[third + 1] = 0xC8 // FF C8: JPG, a marker no decoder reads
        damaged[third + 3] = 0x01 // and a length past the data
        let context = ImageDecodingContext(format: .jpeg, thumbnail: ThumbnailOptions(maxPixelSize: 100))
        let session = try #require(JPEGPreviewSession(context: context))
        var made = 0
        for end in scans.map(\.scanEnd) {
            if session.preview(damaged.prefix(end + 2), scanEnd: end) != nil { made += 1 }
        }
        #expect(made >= 2 && made < scans.count)
        #expect(session.finish(damaged) == nil && !session.isOpen)
    }

    /// Scan data with every 50th byte flipped, data that is not a JPEG at all, a baseline JPEG and
    /// a body cut short at the end: images or nothing, never a crash; a cut body gives no final
    /// image (the decoder then reports the truncation).
    @Test func damagedDataGivesImagesOrNothing() throws {
        let data = try Self.progressive(width: 320, height: 240)
        let context = ImageDecodingContext(format: .jpeg, thumbnail: ThumbnailOptions(maxPixelSize: 100))
        var flipped = data
        for index in stride(from: Self.scans(data, chunk: 512)[0].scanEnd, to: data.count - 2, by: 50) { flipped[index] ^= 0x5A }
        for candidate in [flipped, Data(repeating: 0xFF, count: 4096), try JPEGFiles.encode(JPEGFiles.rgb(JPEGFiles.photo(width: 64, height: 48)), width: 64, height: 48, bands: 3)] {
            let session = try #require(JPEGPreviewSession(context: context))
            for end in stride(from: 0, to: candidate.count - 2, by: 61) {
                if let image = Self.bitmap(session.preview(candidate.prefix(end + 2), scanEnd: end)) {
                    #expect(image.width == 100 || image.width == 64)
                }
            }
            _ = session.finish(candidate)
            #expect(!session.isOpen)
        }
        let cut = try #require(JPEGPreviewSession(context: context))
        let scans = Self.scans(data, chunk: 512)
        // Scan ends no feed gives: nothing, and the session carries on.
        #expect(cut.preview(data, scanEnd: .max) == nil && cut.preview(data, scanEnd: -1) == nil)
        #expect(cut.preview(Data(), scanEnd: 0) == nil && cut.isOpen)
        #expect(cut.preview(scans[1].data, scanEnd: scans[1].scanEnd) != nil)
        #expect(cut.finish(data.prefix(data.count - 300)) == nil)
    }

    /// A body whose first bytes are not the ones the previews were made of (a download retried
    /// after the file changed) gives no final image: the decoder decodes it afresh.
    @Test func aBodyThatChangedUnderTheSessionGivesNoFinalImage() throws {
        let data = try Self.progressive(width: 320, height: 240)
        let context = ImageDecodingContext(format: .jpeg, thumbnail: ThumbnailOptions(maxPixelSize: 100))
        let scans = Self.scans(data, chunk: 512)
        let session = try #require(JPEGPreviewSession(context: context))
        #expect(session.preview(scans[2].data, scanEnd: scans[2].scanEnd) != nil)
        var changed = data
        changed[scans[0].scanEnd - 10] ^= 0x01
        #expect(session.finish(changed) == nil && !session.isOpen)
        let again = try #require(JPEGPreviewSession(context: context))
        #expect(again.preview(scans[2].data, scanEnd: scans[2].scanEnd) != nil)
        #expect(again.finish(data) != nil)
    }

    /// The session reserves the direct path's estimate (most of it the coefficients) from its
    /// first output until it ends; with no room in the budget it makes no preview, without
    /// waiting, and a later preview asks again.
    @Test func theSessionHoldsItsEstimateFromTheBudgetUntilItEnds() throws {
        let data = try Self.progressive()
        let budget = DecodeMemoryBudget(bytes: 64 << 20)
        let context = ImageDecodingContext(format: .jpeg, thumbnail: ThumbnailOptions(maxPixelSize: 100), memoryBudget: budget)
        let scans = Self.scans(data, chunk: 4096)
        let session = try #require(JPEGPreviewSession(context: context))

        let blocking = try budget.reserve(budget.bytes - 1000)
        #expect(session.preview(scans[0].data, scanEnd: scans[0].scanEnd) == nil && session.isOpen)
        blocking.release()
        #expect(session.preview(scans[1].data, scanEnd: scans[1].scanEnd) != nil)
        let coefficients = 640 * 480 * 2 * 3 / 2 // 4:2:0: a block of 64 two-byte values per 64 pixels, chroma a quarter each
        #expect(budget.reservedBytes >= coefficients)
        session.close()
        #expect(budget.reservedBytes == 0 && !session.isOpen)
        #expect(session.preview(scans[2].data, scanEnd: scans[2].scanEnd) == nil)
    }

    /// `close()` from another thread while previews run (as a cancel does): it never waits for
    /// a preview, and however the two interleave, the session ends and gives its memory back by
    /// the time the running preview returns; no preview is made after it.
    @Test(arguments: 0..<20)
    func closingWhilePreviewsRunEndsTheSession(delay: Int) async throws {
        let data = try Self.progressive()
        let budget = DecodeMemoryBudget(bytes: 64 << 20)
        let context = ImageDecodingContext(format: .jpeg, thumbnail: ThumbnailOptions(maxPixelSize: 150), memoryBudget: budget)
        let scans = Self.scans(data, chunk: 4096)
        let session = try #require(JPEGPreviewSession(context: context))
        let closed = Locked(false)
        let previews = Task.detached { () -> Int in
            var afterClose = 0
            for scan in scans {
                let wasClosed = closed.current
                if session.preview(scan.data, scanEnd: scan.scanEnd) != nil, wasClosed { afterClose += 1 }
            }
            return afterClose
        }
        try await Task.sleep(for: .microseconds(delay * 500))
        session.close()
        closed.withLock { $0 = true }
        #expect(await previews.value == 0)
        #expect(!session.isOpen && budget.reservedBytes == 0)
    }

    /// Sessions that end every way — the final image, a close half-way, a damaged marker, data
    /// cut short, a header over the pixel limit, one dropped without a close — release libjpeg's
    /// object, the coefficients and the bytes: 1,500 sessions in five batches, the quietest batch
    /// × 5 under 10 MB (one lost session is over 100 KB of coefficients and bytes).
    @Test func everySessionReleasesEverything() throws {
        let data = try Self.progressive(width: 320, height: 240)
        let scans = Self.scans(data, chunk: 512)
        var damaged = data
        damaged[scans[2].scanEnd + 1] = 0xC8
        let bomb = JPEGFiles.withFrameSize(data, width: 30000, height: 30000)
        let context = ImageDecodingContext(format: .jpeg, thumbnail: ThumbnailOptions(maxPixelSize: 100))
        func run(_ count: Int) {
            for i in 0..<count {
                guard let session = JPEGPreviewSession(context: context) else { continue }
                let bytes = [data, data, damaged, data, bomb, data][i % 6]
                for scan in scans.prefix(4) { _ = session.preview(bytes.prefix(scan.scanEnd + 2), scanEnd: scan.scanEnd) }
                switch i % 6 {
                case 0, 2, 4: _ = session.finish(bytes)
                case 1: session.close()
                case 3: _ = session.finish(bytes.prefix(bytes.count / 2 + 1000))
                default: break // dropped
                }
            }
        }
        run(100)
        var samples = [try #require(ResidentMemory.settledPrivateBytes())]
        for _ in 0..<5 {
            run(300)
            samples.append(try #require(ResidentMemory.settledPrivateBytes()))
        }
        let growths = zip(samples.dropFirst(), samples).map { $0 - $1 }
        #expect(growths.min()! * 5 < 10 << 20, "batches grew by \(growths.map { $0 >> 10 }) KB")
    }
}
#endif
