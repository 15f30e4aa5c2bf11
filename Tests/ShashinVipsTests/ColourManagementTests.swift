// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ShashinCore
import ShashinVips
import Testing

/// Images carrying an ICC profile are converted to sRGB, as `Bitmap` promises.
@Suite struct ColourManagement {
    /// The stored samples are about (211, 51, 38); shown through their Display P3 profile they
    /// are sRGB (230, 20, 20). Reading the samples as sRGB would be off by 20–30 per channel.
    @Test(arguments: ["red-in-display-p3.png", "red-in-display-p3.jpg"],
          [nil, ThumbnailOptions(maxPixelSize: 8)])
    func aDisplayP3ImageDecodesToItsSRGBColours(name: String, thumbnail: ThumbnailOptions?) throws {
        let data = try Fixtures.data("colour/\(name)")
        let decoded = try VipsImageDecoder().decodeBitmap(data, context: .init(format: ImageFormat(sniffing: data), thumbnail: thumbnail))
        #expect(decoded.width == (thumbnail == nil ? 16 : 8))
        let pixel = decoded.pixel(x: decoded.width / 2, y: decoded.height / 2)
        #expect(abs(Int(pixel.r) - 230) <= 3 && abs(Int(pixel.g) - 20) <= 3 && abs(Int(pixel.b) - 20) <= 3 && pixel.a == 255,
                "\(name): \(pixel)")
    }
}
#endif
