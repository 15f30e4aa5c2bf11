// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ShashinCore
import ShashinVips
import Testing

/// The pixel limit is checked against the header, before any pixel is allocated.
@Suite struct PixelLimit {
    @Test func aPngHeaderDeclaring65535SquaredPixelsIsRefusedFromItsHeader() throws {
        let bomb = CraftedFiles.pngHeader(width: 65535, height: 65535)
        #expect(bomb.count < 100)
        // Under 100 bytes hold no pixels: the typed refusal can only come from the header.
        #expect(throws: ImagePipelineError.imageTooLarge(width: 65535, height: 65535, limit: ImageDecodingContext.defaultMaxPixelCount)) {
            try VipsImageDecoder().decode(bomb, context: .init(format: .png))
        }
    }

    @Test func theBombIsAlsoRefusedWhenOnlyAThumbnailIsAsked() throws {
        let bomb = CraftedFiles.pngHeader(width: 65535, height: 65535)
        #expect(throws: ImagePipelineError.imageTooLarge(width: 65535, height: 65535, limit: ImageDecodingContext.defaultMaxPixelCount)) {
            try VipsImageDecoder().decode(bomb, context: .init(format: .png, thumbnail: .init(maxPixelSize: 100)))
        }
    }

    @Test(arguments: [ImageFormat.jpeg, .png, .webp, .gif])
    func anImageLargerThanTheConfiguredLimitIsRefused(format: ImageFormat) throws {
        let data = try VipsImageEncoder().encodeBitmap(TestImages.gradient(width: 64, height: 48), as: format, quality: 0.9)
        #expect(throws: ImagePipelineError.imageTooLarge(width: 64, height: 48, limit: 3071)) {
            try VipsImageDecoder().decode(data, context: .init(format: format, maxPixelCount: 3071))
        }
        let atTheLimit = try VipsImageDecoder().decodeBitmap(data, context: .init(format: format, maxPixelCount: 3072))
        #expect(atTheLimit.width == 64 && atTheLimit.height == 48)
    }
}
#endif
