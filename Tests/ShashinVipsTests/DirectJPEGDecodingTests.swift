// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ShashinCore
@testable import ShashinVips
import Testing

/// The direct libjpeg-turbo path gives what the libvips path gives — the same pixels where no
/// resampling is involved, nearly the same where it is — and leaves to libvips every JPEG it
/// cannot decode exactly.
///
/// Serialized: the libvips reference decodes here are large, and run all at once they would
/// hold enough vips memory and objects to disturb `DecoderMemory`'s counts in the same process.
@Suite(.serialized) struct DirectJPEGDecoding {
    /// The libvips path alone, for reference.
    static let vips = VipsImageDecoder(decodesJPEGDirectly: false)

    /// An 800×600 photo-like JPEG (quality 85, 4:2:0 as libvips writes it).
    static let photo: Data = try! VipsImageEncoder().encodeBitmap(JPEGFiles.photo(width: 800, height: 600), as: .jpeg, quality: 0.85)

    struct Declined: Error, CustomStringConvertible {
        let description: String
    }

    /// `data` through the direct path, which must take it.
    static func direct(_ data: Data, _ context: ImageDecodingContext) throws -> Bitmap {
        switch try data.withUnsafeBytes({ try DirectJPEGDecoder.decode($0, context: context) }) {
        case .decoded(let bitmap): return bitmap
        case .declined(let reason): throw Declined(description: "declined: \(reason)")
        }
    }

    /// Why the direct path leaves `data` to libvips; `nil` when it decodes it.
    static func declineReason(_ data: Data, _ context: ImageDecodingContext = .init(format: .jpeg)) throws -> String? {
        switch try data.withUnsafeBytes({ try DirectJPEGDecoder.decode($0, context: context) }) {
        case .decoded: return nil
        case .declined(let reason): return reason
        }
    }

    // MARK: - Same pictures as libvips

    /// Thumbnails that need resampling after the DCT shrink: the direct path's Lanczos 3 against
    /// libvips' (`vips_thumbnail_image`, also Lanczos 3). Measured: mean difference 0.06–0.24
    /// levels of 255, largest 2–5 (at the hard edges). Bound: mean ≤ 0.5, largest ≤ 10.
    @Test(arguments: [256, 300, 150, 97, 64, 611, 700, 799])
    func thumbnailsAreCloseToLibvips(maxPixelSize: Int) throws {
        let context = ImageDecodingContext(format: .jpeg, thumbnail: .init(maxPixelSize: maxPixelSize))
        let expected = try Self.vips.decodeBitmap(Self.photo, context: context)
        let direct = try Self.direct(Self.photo, context)
        let size = ThumbnailOptions(maxPixelSize: maxPixelSize).targetSize(width: 800, height: 600)
        try #require(direct.width == size.width && direct.height == size.height)
        try #require(expected.width == size.width && expected.height == size.height)
        let difference = JPEGFiles.difference(direct, expected)
        #expect(difference.mean <= 0.5 && difference.maximum <= 10, "\(maxPixelSize): \(difference)")
        // And the public decoder takes this path.
        #expect(try VipsImageDecoder().decodeBitmap(Self.photo, context: context) == direct)
    }

    /// Where the DCT alone makes the size (full size, exactly 1/2, 1/4, 1/8), both paths run the
    /// same libjpeg-turbo decode with the same settings: identical pixels.
    @Test(arguments: [nil, 400, 200, 100, 800, 4000] as [Int?])
    func decodesWithoutResamplingAreIdenticalToLibvips(maxPixelSize: Int?) throws {
        let context = ImageDecodingContext(format: .jpeg, thumbnail: maxPixelSize.map { ThumbnailOptions(maxPixelSize: $0) })
        let direct = try Self.direct(Self.photo, context)
        let expected = try Self.vips.decodeBitmap(Self.photo, context: context)
        #expect(direct.width == expected.width && direct.height == expected.height)
        #expect(direct == expected, "\(PixelDifference(direct, expected))")
    }

    /// Thumbnails of a few pixels: the kernel, stretched far past the picture's edges, weighs the
    /// edge pixels differently from libvips (which box-shrinks first at such ratios). Measured:
    /// mean 1.7–2.4, largest 4–7 here (up to 11 on a 1600×1200 picture); bound: largest ≤ 12.
    @Test(arguments: [1, 2, 3])
    func tinyThumbnailsAreCloseToLibvips(maxPixelSize: Int) throws {
        let context = ImageDecodingContext(format: .jpeg, thumbnail: .init(maxPixelSize: maxPixelSize))
        let difference = JPEGFiles.difference(try Self.direct(Self.photo, context), try Self.vips.decodeBitmap(Self.photo, context: context))
        #expect(difference.maximum <= 12, "\(difference)")
    }

    /// Upscaling (when allowed) is libvips' job: it interpolates differently.
    @Test func upscalingIsLeftToLibvips() throws {
        let small = try VipsImageEncoder().encodeBitmap(JPEGFiles.photo(width: 120, height: 90), as: .jpeg, quality: 0.9)
        let context = ImageDecodingContext(format: .jpeg, thumbnail: .init(maxPixelSize: 200, allowsUpscaling: true))
        #expect(try Self.declineReason(small, context)?.contains("upscaling") == true)
        let decoded = try VipsImageDecoder().decodeBitmap(small, context: context)
        #expect(decoded == (try Self.vips.decodeBitmap(small, context: context)))
        #expect(decoded.width == 200 && decoded.height == 150)
    }

    @Test func progressiveJPEGsDecodeDirectlyToTheSamePictures() throws {
        let bitmap = JPEGFiles.photo(width: 800, height: 600)
        let progressive = try JPEGFiles.encode(JPEGFiles.rgb(bitmap), width: 800, height: 600, bands: 3, quality: 85, progressive: true)
        #expect(progressive.contains(Data([0xFF, 0xC2])), "a progressive frame header (SOF2)")
        let full = ImageDecodingContext(format: .jpeg)
        #expect(try Self.direct(progressive, full) == Self.vips.decodeBitmap(progressive, context: full))
        let thumbnail = ImageDecodingContext(format: .jpeg, thumbnail: .init(maxPixelSize: 150))
        let difference = JPEGFiles.difference(try Self.direct(progressive, thumbnail), try Self.vips.decodeBitmap(progressive, context: thumbnail))
        #expect(difference.mean <= 0.5 && difference.maximum <= 10, "\(difference)")
    }

    @Test func greyscaleJPEGsDecodeDirectlyToGreyRGBA() throws {
        let (width, height) = (300, 200)
        let grey = (0..<width * height).map { UInt8(truncatingIfNeeded: ($0 % width) + ($0 / width) / 2) }
        let data = try JPEGFiles.encode(grey, width: width, height: height, bands: 1)
        for thumbnail in [nil, ThumbnailOptions(maxPixelSize: 64)] {
            let context = ImageDecodingContext(format: .jpeg, thumbnail: thumbnail)
            let direct = try Self.direct(data, context)
            let expected = try Self.vips.decodeBitmap(data, context: context)
            try #require(direct.width == expected.width && direct.height == expected.height)
            for i in stride(from: 0, to: direct.pixels.count, by: 4) {
                guard direct.pixels[i] == direct.pixels[i + 1], direct.pixels[i] == direct.pixels[i + 2], direct.pixels[i + 3] == 255 else {
                    Issue.record("pixel \(i / 4) is not opaque grey: \(direct.pixels[i..<i + 4])")
                    break
                }
            }
            if thumbnail == nil {
                #expect(direct == expected)
            } else {
                let difference = JPEGFiles.difference(direct, expected)
                #expect(difference.mean <= 0.5 && difference.maximum <= 10, "\(difference)")
            }
        }
    }

    // MARK: - Orientation

    /// Every EXIF orientation, applied by the direct path: the full-size result is the same
    /// permutation of the same pixels libvips makes; the thumbnail is sized by its upright sides.
    @Test(arguments: 1...8)
    func everyExifOrientationIsAppliedByTheDirectPath(orientation: Int) throws {
        let swapsSides = orientation >= 5
        let data = try OrientationDecoding.jpeg(orientation: UInt16(orientation))
        let full = ImageDecodingContext(format: .jpeg)
        let decoded = try Self.direct(data, full)
        #expect(decoded.width == (swapsSides ? 64 : 96) && decoded.height == (swapsSides ? 96 : 64))
        #expect(TestImages.quadrantIndices(of: decoded) == OrientationDecoding.displayedQuadrants[UInt16(orientation)]!.map { Optional($0) })
        #expect(decoded == (try Self.vips.decodeBitmap(data, context: full)))

        let large = try OrientationDecoding.jpeg(orientation: UInt16(orientation), width: 800, height: 600)
        let context = ImageDecodingContext(format: .jpeg, thumbnail: .init(maxPixelSize: 256))
        let thumbnail = try Self.direct(large, context)
        #expect(thumbnail.width == (swapsSides ? 192 : 256) && thumbnail.height == (swapsSides ? 256 : 192))
        #expect(TestImages.quadrantIndices(of: thumbnail) == OrientationDecoding.displayedQuadrants[UInt16(orientation)]!.map { Optional($0) })
        let difference = JPEGFiles.difference(thumbnail, try Self.vips.decodeBitmap(large, context: context))
        #expect(difference.mean <= 0.5 && difference.maximum <= 10, "\(difference)")
    }

    // MARK: - Failing like libvips

    /// Cut anywhere — in the header, in the scan, just before the end-of-image marker — the
    /// direct path throws rather than giving part of an image (libvips, with fail-on-truncated,
    /// refuses all of these too).
    @Test(arguments: [false, true])
    func truncatedJPEGsFail(progressive: Bool) throws {
        let bitmap = JPEGFiles.photo(width: 320, height: 240)
        let whole = try JPEGFiles.encode(JPEGFiles.rgb(bitmap), width: 320, height: 240, bands: 3, progressive: progressive)
        for cut in [whole.count / 2, whole.count - 2, whole.count - 1, 120, 3 * whole.count / 4] {
            let data = whole.prefix(cut)
            for thumbnail in [nil, ThumbnailOptions(maxPixelSize: 40)] {
                let context = ImageDecodingContext(format: .jpeg, thumbnail: thumbnail)
                let error = #expect(throws: ImagePipelineError.self, "cut at \(cut) of \(whole.count)") {
                    try data.withUnsafeBytes { try DirectJPEGDecoder.decode($0, context: context) }
                }
                guard case .decodingFailed(.jpeg, let reason) = error else {
                    Issue.record("cut at \(cut): \(String(describing: error))")
                    continue
                }
                #expect(!reason.isEmpty)
                #expect(throws: ImagePipelineError.self) { try Self.vips.decodeBitmap(data, context: context) }
                #expect(throws: ImagePipelineError.self) { try VipsImageDecoder().decodeBitmap(data, context: context) }
            }
        }
        #expect(try Self.direct(whole, .init(format: .jpeg)).width == 320)
    }

    /// Random damage (and every third file cut short): whenever the direct path gives a bitmap,
    /// libvips gives the same one, and whenever it fails, libvips fails too (declined files are
    /// libvips' alone).
    @Test func damagedJPEGsGetTheSameAnswerFromBothPaths() throws {
        let original = [UInt8](try VipsImageEncoder().encodeBitmap(JPEGFiles.photo(width: 120, height: 80), as: .jpeg, quality: 0.8))
        var random = SplitMix64(seed: 0xD1EC7)
        var counts = (decoded: 0, failed: 0, declined: 0)
        for round in 0..<300 {
            var damaged = original
            for _ in 0..<Int(random.next() % 6 + 1) {
                let position = 2 + Int(random.next() % UInt64(damaged.count - 2))
                damaged[position] = UInt8(truncatingIfNeeded: random.next())
            }
            if round % 3 == 0 { damaged.removeLast(1 + Int(random.next() % UInt64(damaged.count - 3))) }
            let data = Data(damaged)
            let context = ImageDecodingContext(format: .jpeg, thumbnail: round % 2 == 0 ? nil : ThumbnailOptions(maxPixelSize: 40),
                                               maxPixelCount: 4_000_000)
            let reference = Result { try Self.vips.decodeBitmap(data, context: context) }
            do {
                switch try data.withUnsafeBytes({ try DirectJPEGDecoder.decode($0, context: context) }) {
                case .decoded(let bitmap):
                    counts.decoded += 1
                    guard case .success(let expected) = reference else {
                        Issue.record("round \(round): decoded directly, libvips failed: \(reference)")
                        continue
                    }
                    if context.thumbnail == nil {
                        #expect(bitmap == expected, "round \(round)")
                    } else {
                        #expect(bitmap.width == expected.width && bitmap.height == expected.height, "round \(round)")
                    }
                case .declined:
                    counts.declined += 1
                }
            } catch {
                counts.failed += 1
                if case .success = reference { Issue.record("round \(round): failed directly (\(error)), libvips decoded it") }
            }
        }
        #expect(counts.decoded > 0 && counts.failed > 0, "\(counts)")
    }

    // MARK: - Left to libvips

    /// A Display P3 profile (libvips' own, embedded by libvips) is transformed to sRGB on the
    /// direct path; `DirectJPEGColour` compares it with the libvips path in detail.
    @Test(arguments: [nil, ThumbnailOptions(maxPixelSize: 8)])
    func aDisplayP3JPEGIsDecodedDirectlyIntoSRGB(thumbnail: ThumbnailOptions?) throws {
        let data = try Fixtures.data("colour/red-in-display-p3.jpg")
        let reason = try Self.declineReason(data, .init(format: .jpeg, thumbnail: thumbnail))
        #expect(reason == nil, "\(reason ?? "")")
        let decoded = try VipsImageDecoder().decodeBitmap(data, context: .init(format: .jpeg, thumbnail: thumbnail))
        let pixel = decoded.pixel(x: decoded.width / 2, y: decoded.height / 2)
        #expect(abs(Int(pixel.r) - 230) <= 3 && abs(Int(pixel.g) - 20) <= 3 && abs(Int(pixel.b) - 20) <= 3, "\(pixel)")
    }

    /// An embedded sRGB profile changes nothing (libvips skips the transform too), so the direct
    /// path keeps the file, in one ICC segment or several, with no transform; segments that do
    /// not reassemble, or a profile lcms cannot read (this "Adobe RGB" is only a header and a
    /// description), go to libvips.
    @Test func sRGBProfilesStayOnTheDirectPathOthersDoNot() throws {
        let plain = try VipsImageEncoder().encodeBitmap(TestImages.quadrants(width: 64, height: 48), as: .jpeg, quality: 0.9)
        let sRGB = ICCProfileRecognition.profile(description: "sRGB IEC61966-2.1")
        let expected = try Self.vips.decodeBitmap(plain, context: .init(format: .jpeg))
        for segments in [1, 3] {
            let data = JPEGFiles.withICCProfile(plain, profile: sRGB, segments: segments)
            #expect(try Self.declineReason(data) == nil, "\(segments) segment(s)")
            #expect(try Self.direct(data, .init(format: .jpeg)) == expected)
        }
        let adobe = JPEGFiles.withICCProfile(plain, profile: ICCProfileRecognition.profile(description: "Adobe RGB (1998)"))
        #expect(try Self.declineReason(adobe)?.contains("ICC") == true)
        let missingSegment = JPEGFiles.withICCProfile(plain, profile: sRGB, segments: 2, declared: 3)
        #expect(try Self.declineReason(missingSegment)?.contains("ICC") == true)
        // libvips still decodes both.
        #expect(try VipsImageDecoder().decodeBitmap(adobe, context: .init(format: .jpeg)).width == 64)
        #expect(try VipsImageDecoder().decodeBitmap(missingSegment, context: .init(format: .jpeg)).width == 64)
    }

    @Test func cmykJPEGsAreLeftToLibvips() throws {
        let (width, height) = (40, 30)
        let cmyk = (0..<width * height * 4).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let data = try JPEGFiles.encode(cmyk, width: width, height: height, bands: 4)
        #expect(try Self.declineReason(data)?.contains("4 components") == true)
        let decoded = try VipsImageDecoder().decodeBitmap(data, context: .init(format: .jpeg, thumbnail: .init(maxPixelSize: 20)))
        #expect(decoded.width == 20 && decoded.height == 15)
    }

    /// EXIF the direct path cannot read exactly as libexif would goes to libvips.
    @Test func unusualExifIsLeftToLibvips() throws {
        let plain = try VipsImageEncoder().encodeBitmap(TestImages.quadrants(width: 96, height: 64), as: .jpeg, quality: 0.9)
        let twice = CraftedFiles.jpeg(CraftedFiles.jpeg(plain, withOrientation: 6), withOrientation: 3)
        #expect(try Self.declineReason(twice) != nil)
        let outOfRange = CraftedFiles.jpeg(plain, withOrientation: 9)
        #expect(try Self.declineReason(outOfRange) != nil)
        for data in [twice, outOfRange] {
            #expect(try VipsImageDecoder().decodeBitmap(data, context: .init(format: .jpeg)) == Self.vips.decodeBitmap(data, context: .init(format: .jpeg)))
        }
    }

    // MARK: - Pixel limit

    /// A JPEG header declaring 65535 × 65535 (more than libjpeg's 65,500 maximum, which it
    /// refuses with an error of its own) is refused as too large, from the header alone.
    @Test(arguments: [(65535, 65535), (65500, 65500), (30000, 20000)] as [(UInt16, UInt16)])
    func aJPEGBombHeaderIsRefusedAsTooLarge(width: UInt16, height: UInt16) throws {
        let small = try VipsImageEncoder().encodeBitmap(TestImages.gradient(width: 16, height: 16), as: .jpeg, quality: 0.9)
        let bomb = JPEGFiles.withFrameSize(small, width: width, height: height)
        #expect(bomb.count < 1000)
        for thumbnail in [nil, ThumbnailOptions(maxPixelSize: 100)] {
            #expect(throws: ImagePipelineError.imageTooLarge(width: Int(width), height: Int(height), limit: ImageDecodingContext.defaultMaxPixelCount)) {
                try VipsImageDecoder().decode(bomb, context: .init(format: .jpeg, thumbnail: thumbnail))
            }
        }
    }

    // MARK: - Memory

    /// Success, failure half-way through the scan, refusal at the header and a colour transform
    /// made for one decode (a profile new each time, so the kept transforms keep giving way) all
    /// release libjpeg's object, lcms' transform and every buffer: 3,000 decodes in five batches,
    /// quietest batch × 5 under 10 MB (a lost libjpeg object or transform is tens of KB, so a
    /// leak on any path shows).
    @Test func theDirectPathReleasesEverythingOnEveryPath() throws {
        let good = try VipsImageEncoder().encodeBitmap(JPEGFiles.photo(width: 320, height: 240), as: .jpeg, quality: 0.8)
        let truncated = good.prefix(good.count * 2 / 3)
        let bomb = JPEGFiles.withFrameSize(good, width: 30000, height: 30000)
        var serial = 0
        func decodeMany(_ count: Int) {
            for i in 0..<count {
                serial += 1
                let data = i % 4 == 3 ? JPEGFiles.withICCProfile(good, profile: DisplayP3Profile.bytes(description: "P3 \(serial)"))
                    : [good, truncated, bomb][i % 4]
                let context = ImageDecodingContext(format: .jpeg, thumbnail: i % 2 == 0 ? ThumbnailOptions(maxPixelSize: 50) : nil)
                _ = try? data.withUnsafeBytes { try DirectJPEGDecoder.decode($0, context: context) }
            }
        }
        decodeMany(150)
        var samples = [try #require(ResidentMemory.settledPrivateBytes())]
        for _ in 0..<5 {
            decodeMany(600)
            samples.append(try #require(ResidentMemory.settledPrivateBytes()))
        }
        let growths = zip(samples.dropFirst(), samples).map { $0 - $1 }
        #expect(growths.min()! * 5 < 10 << 20, "batches grew by \(growths.map { $0 >> 10 }) KB")
    }
}

/// The EXIF orientation reader: libexif's answer or none.
@Suite struct ExifOrientationReading {
    /// An APP1 payload: "Exif\0\0", then a TIFF header and IFD0 holding `entries`
    /// (tag, type, count, value), then IFD1 holding `next` when given.
    static func payload(bigEndian: Bool = true, entries: [(UInt16, UInt16, UInt32, UInt32)],
                        next: [(UInt16, UInt16, UInt32, UInt32)]? = nil) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] { bigEndian ? u16(UInt16(v >> 16)) + u16(UInt16(v & 0xFFFF)) : u16(UInt16(v & 0xFFFF)) + u16(UInt16(v >> 16)) }
        func directory(_ list: [(UInt16, UInt16, UInt32, UInt32)], nextOffset: UInt32) -> [UInt8] {
            var bytes = u16(UInt16(list.count))
            for (tag, type, count, value) in list {
                // A SHORT value sits in the first two bytes of the value field.
                bytes += u16(tag) + u16(type) + u32(count) + (type == 3 ? u16(UInt16(value)) + [0, 0] : u32(value))
            }
            return bytes + u32(nextOffset)
        }
        var tiff = (bigEndian ? Array("MM".utf8) : Array("II".utf8)) + u16(42) + u32(8)
        let first = directory(entries, nextOffset: next == nil ? 0 : UInt32(8 + 2 + entries.count * 12 + 4))
        tiff += first
        if let next { tiff += directory(next, nextOffset: 0) }
        return Array("Exif".utf8) + [0, 0] + tiff
    }

    static func read(_ bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBytes { ExifOrientation.read($0) }
    }

    @Test(arguments: 1...8)
    func theIFD0TagIsReadInEitherByteOrder(orientation: Int) {
        for bigEndian in [true, false] {
            let entries: [(UInt16, UInt16, UInt32, UInt32)] = [(0x010F, 2, 4, 0), (0x0112, 3, 1, UInt32(orientation)), (0x8769, 4, 1, 100)]
            #expect(Self.read(Self.payload(bigEndian: bigEndian, entries: entries)) == orientation)
        }
    }

    @Test func noTagMeansUpright() {
        #expect(Self.read(Self.payload(entries: [(0x010F, 2, 4, 0)])) == 1)
        #expect(Self.read(Self.payload(entries: [])) == 1)
        #expect(Self.read(Self.payload(entries: [(0x010F, 2, 4, 0)], next: [(0x0201, 4, 1, 0)])) == 1)
    }

    @Test func whatLibexifMightReadDifferentlyIsUnknown() {
        // Only in IFD1, where libexif would still find it.
        #expect(Self.read(Self.payload(entries: [], next: [(0x0112, 3, 1, 6)])) == nil)
        // Out of range (libvips clamps), the wrong type, more than one value.
        #expect(Self.read(Self.payload(entries: [(0x0112, 3, 1, 0)])) == nil)
        #expect(Self.read(Self.payload(entries: [(0x0112, 3, 1, 9)])) == nil)
        #expect(Self.read(Self.payload(entries: [(0x0112, 4, 1, 6)])) == nil)
        #expect(Self.read(Self.payload(entries: [(0x0112, 3, 2, 6)])) == nil)
        // Not an Exif payload, not TIFF.
        #expect(Self.read(Array("Exif".utf8) + [0, 0] + Array("XX".utf8) + [0, 42, 0, 0, 0, 8]) == nil)
        #expect(Self.read(Array("Exig".utf8) + [0, 0] + Array(Self.payload(entries: []).dropFirst(6))) == nil)
        // The first IFD1 offset pointing outside the data.
        var broken = Self.payload(entries: [(0x010F, 2, 4, 0)])
        broken[broken.count - 1] = 0xF0
        #expect(Self.read(broken) == nil)
    }

    /// Every prefix and a few thousand random damages: an answer or `nil`, never a crash.
    @Test func truncatedOrDamagedPayloadsAreReadSafely() {
        let whole = Self.payload(entries: [(0x010F, 2, 4, 0), (0x0112, 3, 1, 6)], next: [(0x0201, 4, 1, 0)])
        for length in 0...whole.count {
            let value = Self.read(Array(whole.prefix(length)))
            #expect(value == nil || value == 6 || value == 1, "prefix \(length): \(String(describing: value))")
        }
        var random = SplitMix64(seed: 0xE71F)
        for _ in 0..<3000 {
            var damaged = whole
            for _ in 0..<Int(random.next() % 4 + 1) {
                damaged[6 + Int(random.next() % UInt64(damaged.count - 6))] = UInt8(truncatingIfNeeded: random.next())
            }
            if let value = Self.read(damaged) { #expect((1...8).contains(value)) }
        }
    }
}
#endif
