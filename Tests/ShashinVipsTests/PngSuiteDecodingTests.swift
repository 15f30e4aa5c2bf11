// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ShashinCore
import ShashinVips
import Testing

/// Willem van Schaik's PngSuite: every colour type, bit depth, interlacing, transparency,
/// gamma and ancillary-chunk case, plus deliberately corrupt files.
@Suite struct PngSuiteDecoding {
    static let allNames = (try? Fixtures.names(in: "pngsuite/png", ext: "png")) ?? []
    static let validNames = allNames.filter { !$0.hasPrefix("x") }
    static let corruptNames = allNames.filter { $0.hasPrefix("x") }

    @Test func theWholeSuiteIsBundled() {
        #expect(Self.validNames.count == 161)
        #expect(Self.corruptNames.count == 14)
    }

    /// The expectation for 16-bit files is the high byte of each sample; see
    /// `scripts/compact-pngsuite-expected.py` for why not the corpus' own `_to8` copies.
    /// Gamma (`g*`) files match exactly: neither the reference nor libvips applies `gAMA`.
    @Test(arguments: validNames)
    func everyValidPngSuiteImageDecodesToTheExpectedPixels(name: String) throws {
        let decoded = try VipsImageDecoder().decodeBitmap(try Fixtures.data("pngsuite/png/\(name)"), context: .init(format: .png))
        let expected = try PAM.bitmap(try Fixtures.data("pngsuite/expected/\(name.dropLast(4)).pam"))
        try #require(decoded.width == expected.width && decoded.height == expected.height,
                     "\(name): \(decoded.width)×\(decoded.height) instead of \(expected.width)×\(expected.height)")
        let difference = PixelDifference(decoded, expected)
        #expect(difference.differingChannels == 0, "\(name): \(difference)")
    }

    @Test(arguments: corruptNames)
    func everyCorruptPngSuiteImageFailsWithDecodingFailed(name: String) throws {
        let data = try Fixtures.data("pngsuite/png/\(name)")
        let error = #expect(throws: ImagePipelineError.self) {
            try VipsImageDecoder().decode(data, context: .init(format: ImageFormat(sniffing: data)))
        }
        guard case .decodingFailed(let format, let reason) = error else {
            Issue.record("\(name): \(String(describing: error)) instead of decodingFailed")
            return
        }
        #expect(format == nil || format == .png)
        #expect(!reason.isEmpty)
    }
}
#endif
