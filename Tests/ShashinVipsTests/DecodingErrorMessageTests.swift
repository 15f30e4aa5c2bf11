// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import CVips
import CZlib
import Foundation
import ShashinCore
@testable import ShashinVips
import Testing

/// Every decoding error names the format, the step that failed and what libvips or the library
/// under it said (or that it said nothing), on its own and with many decodes failing at once.
@Suite struct DecodingErrorMessages {
    /// The reason of the `decodingFailed` that decoding `data` throws, or `nil` when it decodes.
    static func failureReason(_ data: Data, decoder: VipsImageDecoder = VipsImageDecoder(), thumbnail: ThumbnailOptions? = nil,
                              sourceLocation: SourceLocation = #_sourceLocation) -> (format: ImageFormat?, reason: String)? {
        do {
            _ = try decoder.decodeBitmap(data, context: .init(format: ImageFormat(sniffing: data), thumbnail: thumbnail))
            return nil
        } catch {
            guard case .decodingFailed(let format, let reason) = error else {
                Issue.record("\(error) instead of decodingFailed", sourceLocation: sourceLocation)
                return nil
            }
            return (format, reason)
        }
    }

    /// Whether `reason` says "while <one of the decode's steps> the <format> …".
    static func namesFormatAndStage(_ reason: String, _ format: ImageFormat) -> Bool {
        DecodingFailure.Stage.allCases.contains { reason.hasPrefix("while \($0.description(format.displayName)):") }
    }

    /// The words about libpng in `reason` (`libpng said "…"`), or `nil`.
    static func libpngWords(_ reason: String) -> Substring? {
        guard let start = reason.range(of: "libpng said \"") else { return nil }
        return reason[start.upperBound...].prefix { $0 != "\"" }
    }

    static let corruptPngSuite = ((try? Fixtures.names(in: "pngsuite/png", ext: "png")) ?? []).filter { $0.hasPrefix("x") }

    @Test(arguments: corruptPngSuite)
    func everyCorruptPngSuiteFileSaysWhatLibpngSaid(name: String) throws {
        let data = try Fixtures.data("pngsuite/png/\(name)")
        let (format, reason) = try #require(Self.failureReason(data), "\(name) decoded")
        #expect(!reason.contains("unknown libvips error") && !reason.contains(VipsError.noReason), "\(name): \(reason)")
        if ImageFormat(sniffing: data) == nil {
            // xcrn0g04, xlfn0g04, xs1n0g01, xs2n0g01, xs4n0g01, xs7n0g01: a damaged signature.
            #expect(format == nil)
            #expect(reason.hasPrefix("while recognising the format: the data starts like a PNG but its signature is damaged"),
                    "\(name): \(reason)")
        } else {
            #expect(format == .png)
            #expect(Self.namesFormatAndStage(reason, .png), "\(name): \(reason)")
            #expect(Self.libpngWords(reason)?.isEmpty == false, "\(name): \(reason)")
        }
    }

    @Test func aPngWithABadHeaderChecksumQuotesLibpng() throws {
        let (_, reason) = try #require(Self.failureReason(try Fixtures.data("pngsuite/png/xhdn0g08.png")))
        let quote = "while reading the PNG header: libpng said \"IHDR: CRC error\""
        // libpng's words are this decode's own (kept per thread). libvips' error buffer is one per
        // process: a PNG decode of another test failing at the same moment may leave its
        // `vipspng` line to this one (VipsErrorBuffer: same-format failures can share lines).
        #expect(reason == quote || reason.hasPrefix(quote + "; libvips said \"vipspng: "), "\(reason)")
    }

    @Test func aPngWhoseLineEndingsWereConvertedIsCalledADamagedPng() throws {
        let (format, reason) = try #require(Self.failureReason(try Fixtures.data("pngsuite/png/xcrn0g04.png")))
        #expect(format == nil)
        #expect(reason == "while recognising the format: the data starts like a PNG but its signature is damaged "
                + "(its first bytes are 89 50 4E 47 0D 0D 1A 0D; a PNG's are 89 50 4E 47 0D 0A 1A 0A)")
    }

    @Test func dataOfNoKnownFormatIsDescribedByItsFirstBytes() throws {
        let (format, reason) = try #require(Self.failureReason(Data("<!DOCTYPE html>".utf8)))
        #expect(format == nil)
        #expect(reason == "while recognising the format: the data is not in any known image format (its first bytes are 3C 21 44 4F 43 54 59 50)")
    }

    /// A JPEG that decodes despite libjpeg's warnings leaves them in libvips' error buffer; the
    /// next JPEG failure must not quote them as its own. (Other tests decoding at the same time
    /// can only take lines away, never add this one.)
    @Test func linesADecodeLeavesBehindAreNotTheNextFailuresReason() throws {
        try VipsRuntime.start() // vips_error needs libvips started
        let token = "VipsJpeg: left behind by a decode that succeeded \(UInt64.random(in: 0...UInt64.max))"
        try VipsErrorBuffer.decoding(.jpeg) { shashin_error_append(token) }
        let lines = try VipsErrorBuffer.decoding(.jpeg) { VipsErrorBuffer.take() }
        #expect(!lines.contains(token))
    }

    @Test func aPngWithADamagedImageChecksumFailsInItsPixels() throws {
        let (_, reason) = try #require(Self.failureReason(try Fixtures.data("pngsuite/png/xcsn0g01.png")))
        #expect(reason.hasPrefix("while decoding the PNG pixels: libpng said \"IDAT: CRC error\""), "\(reason)")
    }

    /// Files of each format cut short or with bytes overwritten, seeded so a failure replays;
    /// only the ones that fail to decode.
    static func damagedFiles() throws -> [(name: String, format: ImageFormat, data: Data)] {
        let encoder = VipsImageEncoder()
        var files: [(String, ImageFormat, Data)] = []
        for format in [ImageFormat.png, .jpeg, .webp, .gif, .avif] {
            let source = format == .jpeg || format == .gif || format == .avif ? TestImages.quadrants(width: 120, height: 90)
                : TestImages.gradient(width: 120, height: 90, alpha: true)
            let original = [UInt8](try encoder.encodeBitmap(source, as: format, quality: 0.9))
            for fraction in [0.3, 0.5, 0.8] {
                files.append(("\(format) cut to \(Int(fraction * 100)) %", format, Data(original.prefix(Int(Double(original.count) * fraction)))))
            }
            var random = SplitMix64(seed: 0xE220_0000 + UInt64(original.count))
            for index in 0..<40 {
                var damaged = original
                for _ in 0..<Int(random.next() % 6 + 1) {
                    let position = 12 + Int(random.next() % UInt64(damaged.count - 12))
                    damaged[position] = UInt8(truncatingIfNeeded: random.next())
                }
                files.append(("\(format) damaged #\(index)", format, Data(damaged)))
            }
        }
        return files
    }

    @Test func everyDamagedFileNamesItsFormatAndStage() throws {
        var failures: [ImageFormat: Int] = [:]
        for (name, format, data) in try Self.damagedFiles() {
            for decoder in [VipsImageDecoder(), VipsImageDecoder(decodesJPEGDirectly: false)] where format == .jpeg || decoder.decodesJPEGDirectly {
                guard let (sniffed, reason) = Self.failureReason(data, decoder: decoder) else { continue }
                failures[format, default: 0] += 1
                #expect(sniffed == format, "\(name): \(reason)")
                #expect(Self.namesFormatAndStage(reason, format), "\(name): \(reason)")
                #expect(!reason.contains("unknown libvips error"), "\(name): \(reason)")
            }
        }
        // Enough of each format fail for the checks above to mean something.
        for format in [ImageFormat.png, .jpeg, .webp, .gif, .avif] {
            #expect(failures[format, default: 0] >= 5, "\(format): \(failures[format, default: 0]) failures")
        }
    }

    /// libvips' error buffer is one per process. Decoding many damaged files of four formats at
    /// once, each message still names its own format, holds no line of another format's loader,
    /// and quotes exactly the libpng words its file gives alone.
    @Test func messagesOfConcurrentFailuresStayWithTheirOwnFile() throws {
        let decoder = VipsImageDecoder(decodesJPEGDirectly: false)
        let files = try Self.damagedFiles().filter { Self.failureReason($0.data, decoder: decoder) != nil }
        let alone = files.map { Self.failureReason($0.data, decoder: decoder)?.reason ?? "" }
        let domains: [ImageFormat: [String]] = [.png: ["vipspng", "pngload"], .jpeg: ["VipsJpeg", "jpegload"],
                                                .webp: ["webp"], .gif: ["gifload", "nsgif"], .avif: ["heif"]]
        let rounds = 6
        let reasons = Locked([String?](repeating: nil, count: files.count * rounds))
        DispatchQueue.concurrentPerform(iterations: files.count * rounds) { index in
            // No Issue.record here: Swift Testing attributes issues through the task, not a thread.
            var reason: String?
            do {
                _ = try decoder.decodeBitmap(files[index % files.count].data, context: .init(format: files[index % files.count].format))
            } catch {
                if case .decodingFailed(_, let text)? = error as? ImagePipelineError { reason = text } else { reason = "\(error)" }
            }
            reasons.withLock { $0[index] = reason }
        }
        for (index, reason) in reasons.current.enumerated() {
            let (name, format, _) = files[index % files.count]
            guard let reason else {
                Issue.record("\(name) decoded when decoded alongside others")
                continue
            }
            #expect(Self.namesFormatAndStage(reason, format), "\(name): \(reason)")
            for (other, words) in domains where other != format {
                #expect(!words.contains { reason.contains($0) }, "\(name) has \(other)'s words: \(reason)")
            }
            if format == .png {
                #expect(Self.libpngWords(reason) == Self.libpngWords(alone[index % files.count]),
                        "\(name): \(reason), alone: \(alone[index % files.count])")
            }
        }
    }

    /// A PNG with an Exif orientation is read with random access, on a vips worker thread; its
    /// libpng words are still quoted, with and without a thumbnail.
    @Test(arguments: [nil, ThumbnailOptions(maxPixelSize: 20)])
    func aDamagedPngTurnedUprightQuotesLibpng(thumbnail: ThumbnailOptions?) throws {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + data
            func bigEndian(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
            return bigEndian(UInt32(data.count)) + typed + bigEndian(UInt32(crc32(0, typed, uInt(typed.count))))
        }
        let png = [UInt8](try VipsImageEncoder().encodeBitmap(TestImages.gradient(width: 60, height: 40), as: .png, quality: 1))
        // A big-endian TIFF header and one IFD entry: orientation (0x0112), SHORT, 6.
        let exif: [UInt8] = Array("MM".utf8) + [0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
        var file = Array(png.prefix(33)) + chunk("eXIf", exif) + Array(png.dropFirst(33))
        let upright = try VipsImageDecoder().decodeBitmap(Data(file), context: .init(format: .png))
        try #require(upright.width == 40 && upright.height == 60, "the eXIf orientation is applied")
        let idat = try #require(file.indices.first { file[$0..<min($0 + 4, file.count)].elementsEqual("IDAT".utf8) })
        file[idat + 20] ^= 0x55
        let (_, reason) = try #require(Self.failureReason(Data(file), thumbnail: thumbnail))
        #expect(reason.hasPrefix("while decoding the PNG pixels: libpng said \"IDAT: "), "\(reason)")
    }

    @Test func aChunkTypeOfLettersIsPrintedAsItIs() {
        #expect(PNGChunkGuard.printable(Array("iTXt".utf8)) == "iTXt")
    }

    @Test func aChunkTypeWithOtherBytesIsPrintedAsZeroPaddedHex() {
        #expect(PNGChunkGuard.printable([0x00, 0x41, 0xFF, 0x0A]) == "00 41 FF 0A")
        #expect(PNGChunkGuard.printable([0x49, 0x44, 0x41, 0x80]) == "49 44 41 80")
    }

    @Test func aChunkWithANonASCIITypeDeclaringTooManyBytesIsNamedByItsBytes() throws {
        let png = [UInt8](try VipsImageEncoder().encodeBitmap(TestImages.gradient(width: 8, height: 8), as: .png, quality: 1))
        // After the signature and IHDR (8 + 25 bytes): a chunk declaring 1 MB, typed 00 41 FF 0A.
        let chunk: [UInt8] = [0x00, 0x10, 0x00, 0x00, 0x00, 0x41, 0xFF, 0x0A, 1, 2, 3, 4]
        let data = Data(png.prefix(33) + chunk + png.dropFirst(33))
        let (format, reason) = try #require(Self.failureReason(data))
        #expect(format == .png)
        #expect(reason == "while checking the PNG chunks: the 00 41 FF 0A chunk declares 1048576 bytes, more than the "
                + "\(data.count - 33 - 8) left in the data: truncated or hostile")
        #expect(!reason.unicodeScalars.contains("\u{FFFD}"))
    }
}
#endif
