// The C kernels exist only where Shashin decodes with libvips (Linux).
#if canImport(ShashinVips)
import CImageKernels
import CZlib
import Foundation
import ShashinCore
@testable import ShashinVips
import Testing

/// The C target's functions called directly, without the Swift decoders around them: the
/// resampler's weights, the zlib guard's answers, the direct JPEG decode and the preview session.
@Suite struct ImageKernelsTests {
    // MARK: resampling

    /// `width` x `height` RGBA pixels, every one `pixel`.
    static func flat(_ pixel: [UInt8], width: Int, height: Int) -> [UInt8] {
        Array([[UInt8]](repeating: pixel, count: width * height).joined())
    }

    static func shrink(_ pixels: [UInt8], _ width: Int, _ height: Int, to outWidth: Int, _ outHeight: Int,
                       premultiply: Bool = false, boxGap: Double = 0) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: outWidth * outHeight * 4)
        let status = shashin_rgba_shrink(pixels, Int32(width), Int32(height), width * 4, 4, &out,
                                         Int32(outWidth), Int32(outHeight), premultiply ? 1 : 0, boxGap)
        return status == 0 ? out : nil
    }

    /// The weights of every output sample sum to one: a flat image stays exactly that colour at
    /// any size, with the kernel's negative lobes, the edges folded in, and the box pass.
    @Test(arguments: [(97, 61, 13, 7, 0.0), (640, 480, 80, 60, 2.0), (10, 10, 10, 10, 0.0), (5, 9, 3, 2, 0.0),
                      (33, 1, 4, 1, 0.0)])
    func aFlatImageStaysFlat(_ size: (Int, Int, Int, Int, Double)) throws {
        let (width, height, outWidth, outHeight, boxGap) = size
        let pixel: [UInt8] = [200, 100, 37, 255]
        let out = try #require(Self.shrink(Self.flat(pixel, width: width, height: height), width, height,
                                           to: outWidth, outHeight, boxGap: boxGap))
        #expect(out == Self.flat(pixel, width: outWidth, height: outHeight))
    }

    /// With premultiplied alpha, the colour of fully transparent pixels does not bleed into the
    /// visible ones: red beside transparent green stays red wherever anything shows.
    @Test func transparentColourDoesNotBleed() throws {
        let width = 40, height = 8
        var pixels = [UInt8]()
        for _ in 0..<height {
            for x in 0..<width { pixels += x % 4 == 0 ? [255, 0, 0, 255] : [0, 255, 0, 0] }
        }
        let out = try #require(Self.shrink(pixels, width, height, to: 10, 2, premultiply: true))
        for i in stride(from: 0, to: out.count, by: 4) {
            #expect(out[i + 3] > 0)
            #expect(out[i] >= 250 && out[i + 1] <= 3, "pixel \(i / 4): \(Array(out[i..<i + 4]))")
        }
    }

    // MARK: the zlib guard

    static func deflated(_ bytes: [UInt8]) -> [UInt8] {
        var length = compressBound(uLong(bytes.count))
        var out = [UInt8](repeating: 0, count: Int(length))
        precondition(compress2(&out, &length, bytes, uLong(bytes.count), 9) == Z_OK)
        return Array(out.prefix(Int(length)))
    }

    static func inflatedSize(_ stream: [UInt8], limit: Int) -> Int64 {
        stream.withUnsafeBytes { Int64(shashin_zlib_inflated_size($0.baseAddress, $0.count, limit)) }
    }

    /// A whole stream: its exact size up to the limit (also at the limit), `limit + 1` past it.
    @Test func aWholeStreamGivesItsSizeOrPassesTheLimit() {
        let stream = Self.deflated([UInt8](repeating: 7, count: 100_000))
        #expect(Self.inflatedSize(stream, limit: 1 << 30) == 100_000)
        #expect(Self.inflatedSize(stream, limit: 100_000) == 100_000)
        #expect(Self.inflatedSize(stream, limit: 99_999) == 100_000)
        #expect(Self.inflatedSize(stream, limit: 1000) == 1001)
        #expect(Self.inflatedSize(Self.deflated([]), limit: 10) == 0)
    }

    /// A stream that ends early, a damaged header, a damaged body and no bytes at all: -1.
    @Test func brokenStreamsAreRefused() {
        let whole = Self.deflated((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 7) })
        #expect(Self.inflatedSize(Array(whole.dropLast(6)), limit: 1 << 30) == -1)
        var header = whole
        header[0] ^= 0xFF
        #expect(Self.inflatedSize(header, limit: 1 << 30) == -1)
        var checksum = whole
        checksum[checksum.count - 1] ^= 0x01
        #expect(Self.inflatedSize(checksum, limit: 1 << 30) == -1)
        #expect(Self.inflatedSize([], limit: 1 << 30) == -1)
    }

    // MARK: the direct JPEG decoder

    /// A 64 x 48 JPEG: red on the left half, blue on the right.
    static func halves(progressive: Bool = false) throws -> Data {
        let width = 64, height = 48
        var samples = [UInt8]()
        for _ in 0..<height {
            for x in 0..<width { samples += x < width / 2 ? [220, 20, 20] : [20, 20, 220] }
        }
        return try JPEGFiles.encode(samples, width: width, height: height, bands: 3, quality: 95, progressive: progressive)
    }

    /// Decodes `jpeg` at 1/`shrink` to `width` x `height` as stored, turned by `orientation`.
    static func decode(_ jpeg: Data, shrink: Int32, width: Int, height: Int, orientation: Int32 = 1)
        -> (status: Int32, header: shashin_jpeg_header, failure: shashin_jpeg_failure, message: String, rgba: [UInt8]) {
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        let decoder = shashin_jpeg_new()!
        defer { shashin_jpeg_free(decoder) }
        return jpeg.withUnsafeBytes { bytes in
            var status = shashin_jpeg_read_header(decoder, bytes.baseAddress, bytes.count)
            let header = shashin_jpeg_get_header(decoder)
            if status == 0 {
                status = shashin_jpeg_decode(decoder, shrink, Int32(width), Int32(height), orientation,
                                             SHASHIN_FILTER_LANCZOS3, &rgba, rgba.count)
            }
            return (status, header, shashin_jpeg_get_failure(decoder), String(cString: shashin_jpeg_get_message(decoder)), rgba)
        }
    }

    /// The pixel at (x, y) of an RGBA image `width` wide.
    static func pixel(_ rgba: [UInt8], _ x: Int, _ y: Int, width: Int) -> [UInt8] {
        Array(rgba[(y * width + x) * 4..<(y * width + x) * 4 + 4])
    }

    static func near(_ pixel: [UInt8], _ expected: [UInt8]) -> Bool {
        zip(pixel, expected).allSatisfy { abs(Int($0) - Int($1)) <= 12 }
    }

    /// The header as the frame declares it, and a decode at 1/2 by the DCT, then resampled to
    /// 24 x 20, upright and turned 180°.
    @Test func decodesAtAShrinkAndTurns() throws {
        let jpeg = try Self.halves()
        let red: [UInt8] = [220, 20, 20, 255], blue: [UInt8] = [20, 20, 220, 255]
        let plain = Self.decode(jpeg, shrink: 2, width: 24, height: 20)
        #expect(plain.status == 0)
        #expect(plain.header.width == 64 && plain.header.height == 48 && plain.header.components == 3)
        #expect(plain.header.color_space == SHASHIN_JPEG_YCBCR && plain.header.progressive == 0)
        #expect(Self.near(Self.pixel(plain.rgba, 2, 10, width: 24), red))
        #expect(Self.near(Self.pixel(plain.rgba, 21, 10, width: 24), blue))
        let turned = Self.decode(jpeg, shrink: 2, width: 24, height: 20, orientation: 3)
        #expect(turned.status == 0)
        #expect(Self.near(Self.pixel(turned.rgba, 2, 10, width: 24), blue))
        #expect(Self.near(Self.pixel(turned.rgba, 21, 10, width: 24), red))
        // At 1/8 the DCT alone makes 8 x 6, written without resampling.
        let eighth = Self.decode(jpeg, shrink: 8, width: 8, height: 6)
        #expect(eighth.status == 0)
        #expect(Self.near(Self.pixel(eighth.rgba, 0, 0, width: 8), red) && Self.near(Self.pixel(eighth.rgba, 7, 5, width: 8), blue))
    }

    /// Arguments out of range fail as refused (another decoder may try); data cut off in the scan
    /// fails as incomplete, in libjpeg's words.
    @Test func refusesBadArgumentsAndTruncatedData() throws {
        let jpeg = try Self.halves()
        let badShrink = Self.decode(jpeg, shrink: 3, width: 24, height: 20)
        #expect(badShrink.status == -1 && badShrink.failure == SHASHIN_JPEG_FAILED)
        #expect(badShrink.message == "invalid decode arguments")
        let truncated = Self.decode(jpeg.prefix(jpeg.count * 2 / 3), shrink: 1, width: 64, height: 48)
        #expect(truncated.status == -1 && truncated.failure == SHASHIN_JPEG_INCOMPLETE)
        #expect(truncated.message.contains("Premature end"))
    }

    // MARK: the preview session

    /// A progressive JPEG fed to a session in pieces of every size gives, once the input ends,
    /// the whole-file decode's pixels byte for byte; bytes after the end are refused.
    @Test(arguments: [1, 97, 1000])
    func aSessionFedInPiecesEndsAsTheWholeDecode(piece: Int) throws {
        let jpeg = try JPEGFiles.encode(JPEGFiles.rgb(JPEGFiles.photo(width: 120, height: 90)), width: 120, height: 90,
                                        bands: 3, quality: 85, progressive: true)
        let width = 45, height = 30
        let whole = Self.decode(jpeg, shrink: 2, width: width, height: height, orientation: 6)
        #expect(whole.status == 0 && whole.header.progressive == 1)

        let session = try #require(shashin_jpeg_session_new())
        defer { shashin_jpeg_session_free(session) }
        var headerRead: Int32 = 0
        var previews = 0
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        try jpeg.withUnsafeBytes { bytes in
            for start in stride(from: 0, to: bytes.count, by: piece) {
                let count = min(piece, bytes.count - start)
                #expect(shashin_jpeg_session_append(session, bytes.baseAddress! + start, count) == 0)
                #expect(shashin_jpeg_session_length(session) == start + count)
                #expect(shashin_jpeg_session_continued_by(session, bytes.baseAddress, bytes.count) == 1)
                if headerRead == 0 {
                    headerRead = shashin_jpeg_session_read_header(session)
                    try #require(headerRead >= 0)
                    if headerRead == 1 {
                        #expect(shashin_jpeg_session_start(session, 2, Int32(width), Int32(height), 6,
                                                           SHASHIN_FILTER_LANCZOS3, rgba.count) == 0)
                    }
                    continue
                }
                try #require(shashin_jpeg_session_consume(session, start + count) == 0)
                let shown = shashin_jpeg_session_output(session, &rgba, rgba.count, 0)
                try #require(shown >= 0)
                previews += Int(shown)
            }
        }
        #expect(headerRead == 1)
        #expect(shashin_jpeg_session_end_input(session) == 0)
        #expect(shashin_jpeg_session_output(session, &rgba, rgba.count, 1) == 1)
        #expect(rgba == whole.rgba)
        #expect(previews >= 1)
        let header = shashin_jpeg_get_header(shashin_jpeg_session_decoder(session))
        #expect(header.width == 120 && header.height == 90)
        #expect(shashin_jpeg_session_append(session, [0xFF], 1) == -1)
    }

    /// A session whose bytes stop inside a scan fails as incomplete when told the input ended.
    @Test func aSessionCutShortFailsAsIncomplete() throws {
        let jpeg = try Self.halves(progressive: true)
        let session = try #require(shashin_jpeg_session_new())
        defer { shashin_jpeg_session_free(session) }
        let cut = jpeg.prefix(jpeg.count - 40)
        cut.withUnsafeBytes { _ = shashin_jpeg_session_append(session, $0.baseAddress, $0.count) }
        #expect(shashin_jpeg_session_read_header(session) == 1)
        #expect(shashin_jpeg_session_start(session, 1, 64, 48, 1, SHASHIN_FILTER_LANCZOS3, 64 * 48 * 4) == 0)
        #expect(shashin_jpeg_session_end_input(session) == -1)
        #expect(shashin_jpeg_get_failure(shashin_jpeg_session_decoder(session)) == SHASHIN_JPEG_INCOMPLETE)
    }
}
#endif
