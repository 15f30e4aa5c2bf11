// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ShashinCore
import ShashinVips
import Testing

/// The inputs the decode fuzzer found (`Resources/fuzz/`), replayed as the fuzzer ran them: each
/// fails with a typed error, whatever the thumbnail and pixel limit.
@Suite struct FuzzFindingsTests {
    static let findings = (try? Fixtures.names(in: "fuzz", ext: "png")) ?? []

    @Test(arguments: findings)
    func aFuzzFindingFailsWithATypedError(name: String) throws {
        let data = try Fixtures.data("fuzz/" + name)
        for thumbnail in [nil, ThumbnailOptions(maxPixelSize: 64), ThumbnailOptions(maxPixelSize: 40, allowsUpscaling: true)] {
            for limit in [4_000_000, ImageDecodingContext.defaultMaxPixelCount] {
                let context = ImageDecodingContext(format: ImageFormat(sniffing: data), thumbnail: thumbnail, maxPixelCount: limit)
                let error = #expect(throws: ImagePipelineError.self) {
                    try ImageDecoderRegistry(defaultDecoder: VipsImageDecoder()).decode(data, context: context)
                }
                switch error {
                case .decodingFailed?, .imageTooLarge?: break
                default: Issue.record("\(name): \(String(describing: error))")
                }
            }
        }
    }

    /// libpng allocated a chunk's declared length before reading it: 1.9 GB for a 545-byte file.
    @Test func aPNGChunkDeclaringMoreBytesThanTheFileHoldsIsRefusedBeforeLibpng() throws {
        let data = try Fixtures.data("fuzz/png-itxt-declares-1.9GB.png")
        let error = #expect(throws: ImagePipelineError.self) {
            try VipsImageDecoder().decode(data, context: .init(format: .png))
        }
        guard case .decodingFailed(.png, let reason) = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(reason.contains("iTXt chunk declares 1919251227 bytes"))
    }
}
#endif
