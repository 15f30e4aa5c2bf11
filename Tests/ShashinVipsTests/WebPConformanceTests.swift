// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ShashinCore
import ShashinVips
import Testing

/// A subset of the WebM project's libwebp conformance files (see Resources/webp/README.md).
@Suite struct WebPConformance {
    /// `md5  name.webp.pam` lines from libwebp's own test list: the digest of the PAM file
    /// `dwebp -pam` writes, which is exactly `PAM.encode` of the RGBA pixels.
    static let expectedDigests: [(name: String, md5: String)] = {
        guard let data = try? Fixtures.data("webp/expected-pam.md5") else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 2, parts[1].hasSuffix(".pam") else { return nil }
            return (String(parts[1].dropLast(4)), String(parts[0]))
        }
    }()

    /// Deliberately malformed files whose decoded pixels legitimately differ between libwebp
    /// versions: they must decode (or fail) cleanly, but are not compared with the digest.
    static let malformedNames: Set = [
        // Colour-index pixels beyond the palette. libwebp 1.2.4 (Debian 12) decodes 4096 of them
        // as opaque black; the listed digest comes from a newer libwebp. Size still checked.
        "bad_palette_index.webp",
    ]

    static let lossyAndAlphaNames = expectedDigests.map(\.name).filter { !malformedNames.contains($0) }
    static let gridVectors = (0...15).map { "lossless_vec_1_\($0).webp" }
    static let peakVectors = (0...15).map { "lossless_vec_2_\($0).webp" }

    @Test func theSubsetIsBundled() {
        #expect(Self.expectedDigests.count == 39)
    }

    /// Bit-exact with libwebp's reference decoder, lossy files included (VP8 decoding is
    /// fully specified, and libvips decodes with libwebp and the same default upsampling).
    @Test(arguments: lossyAndAlphaNames)
    func everyConformanceFileDecodesToLibwebpsReferenceOutput(name: String) throws {
        let expected = try #require(Self.expectedDigests.first { $0.name == name }?.md5)
        let decoded = try VipsImageDecoder().decodeBitmap(try Fixtures.data("webp/\(name)"), context: .init(format: .webp))
        #expect(Hex.lowercase(MD5.digest(PAM.encode(decoded))) == expected, "\(name): \(decoded.width)×\(decoded.height)")
    }

    @Test(arguments: malformedNames.sorted())
    func malformedConformanceFilesDecodeWithoutCrashing(name: String) throws {
        let decoded = try VipsImageDecoder().decodeBitmap(try Fixtures.data("webp/\(name)"), context: .init(format: .webp))
        #expect(decoded.width == 128 && decoded.height == 128)
    }

    /// Every transform combination of the lossless format decodes to the same 16×16 grid of
    /// blue and half-transparent red (alpha is not premultiplied).
    @Test(arguments: gridVectors)
    func losslessVectorsDecodeToTheGridReference(name: String) throws {
        try expectIdentical(name, to: "webp/grid.pam")
    }

    /// The same transforms on a photo-like image with opaque alpha.
    @Test(arguments: peakVectors)
    func losslessVectorsDecodeToThePeakReference(name: String) throws {
        try expectIdentical(name, to: "webp/peak.pam")
    }

    private func expectIdentical(_ name: String, to reference: String) throws {
        let expected = try PAM.bitmap(try Fixtures.data(reference))
        let decoded = try VipsImageDecoder().decodeBitmap(try Fixtures.data("webp/\(name)"), context: .init(format: .webp))
        try #require(decoded.width == expected.width && decoded.height == expected.height, "\(name): \(decoded.width)×\(decoded.height)")
        let difference = PixelDifference(decoded, expected)
        #expect(difference.differingChannels == 0, "\(name): \(difference)")
    }
}
#endif
