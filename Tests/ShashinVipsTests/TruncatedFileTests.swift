// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ShashinCore
@testable import ShashinVips
import Testing

/// Files cut anywhere inside their image data end in `decodingFailed`, never in part of an image:
/// JPEG (baseline, progressive, and through the direct libjpeg-turbo path and libvips), PNG
/// (plain and interlaced), WebP (lossy and lossless), GIF, AVIF — each cut at 19 points.
@Suite struct TruncatedFiles {
    static let source = TestImages.gradient(width: 200, height: 150, alpha: true)
    /// 5 %, 10 %, ... 95 % of the file.
    static let cuts = (1...19).map { Double($0) / 20 }

    static func files() throws -> [(name: String, data: Data)] {
        let encoder = VipsImageEncoder()
        let opaque = TestImages.quadrants(width: 200, height: 150)
        return [
            ("jpeg", try encoder.encodeBitmap(opaque, as: .jpeg, quality: 0.9)),
            ("progressive jpeg", try JPEGFiles.encode(JPEGFiles.rgb(opaque), width: 200, height: 150, bands: 3, progressive: true)),
            ("png", try encoder.encodeBitmap(source, as: .png, quality: 1)),
            ("interlaced png", try Fixtures.data("pngsuite/png/basi6a16.png")),
            ("lossy webp", try encoder.encodeBitmap(source, options: .webp(quality: 0.8))),
            ("lossless webp", try encoder.encodeBitmap(source, options: .webp(lossless: true))),
            ("gif", try encoder.encodeBitmap(opaque, as: .gif, quality: 1)),
            ("avif", try encoder.encodeBitmap(opaque, options: .init(format: .avif, quality: 0.8))),
        ]
    }

    @Test(arguments: [nil, ThumbnailOptions(maxPixelSize: 50)])
    func everyCutFileFailsWithDecodingFailed(thumbnail: ThumbnailOptions?) throws {
        for (name, data) in try Self.files() {
            let format = try #require(ImageFormat(sniffing: data))
            let whole = try VipsImageDecoder().decodeBitmap(data, context: .init(format: format, thumbnail: thumbnail))
            #expect(whole.width > 0, "\(name) decodes whole")
            for fraction in Self.cuts {
                let cut = data.prefix(Int(Double(data.count) * fraction))
                for decoder in [VipsImageDecoder(), VipsImageDecoder(decodesJPEGDirectly: false)] where format == .jpeg || decoder.decodesJPEGDirectly {
                    do {
                        let bitmap = try decoder.decodeBitmap(cut, context: .init(format: format, thumbnail: thumbnail))
                        Issue.record("\(name) cut to \(Int(fraction * 100)) % gave \(bitmap) instead of an error")
                    } catch {
                        guard case .decodingFailed = error else {
                            Issue.record("\(name) cut to \(Int(fraction * 100)) %: \(error)")
                            continue
                        }
                    }
                }
            }
        }
    }
}
#endif
