// The ImageIO codecs and Core Graphics processors exist only on Apple platforms; on Linux this
// file is empty (CI here runs Linux only, so these tests have not been run yet: they check on
// Apple platforms what the Linux tests named in each comment check for libvips).
#if canImport(ImageIO)
import CoreGraphics
import Foundation
import ImageIO
import Shashin
import Testing
#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

@Suite struct ImageIOBehaviour {
    static func cgImage(_ image: PlatformImage) throws -> CGImage {
        #if canImport(UIKit)
        return try #require(image.cgImage)
        #else
        return try #require(image.cgImage(forProposedRect: nil, context: nil, hints: nil))
        #endif
    }

    /// As `ColourManagement` on Linux: samples (211, 51, 38) in Display P3 are sRGB (230, 20, 20).
    @Test(arguments: [ImageFormat.png, .jpeg])
    func aDisplayP3ImageDecodesToItsSRGBColours(format: ImageFormat) throws {
        let p3 = try #require(CGColorSpace(name: CGColorSpace.displayP3))
        // Opaque, so the JPEG encoder has no transparency to flatten (which would convert to sRGB).
        let context = try #require(CGContext(data: nil, width: 16, height: 16, bitsPerComponent: 8, bytesPerRow: 0, space: p3,
                                             bitmapInfo: CGImageAlphaInfo.noneSkipLast.rawValue))
        context.setFillColor(try #require(CGColor(colorSpace: p3, components: [211.0 / 255, 51.0 / 255, 38.0 / 255, 1])))
        context.fill(CGRect(x: 0, y: 0, width: 16, height: 16))
        let source = try #require(context.makeImage())
        #if canImport(UIKit)
        let image = UIImage(cgImage: source)
        #else
        let image = NSImage(cgImage: source, size: NSSize(width: 16, height: 16))
        #endif
        let data = try ImageIOEncoder().encode(image, options: .init(format: format, quality: 1))
        let decoded = try ImageIODecoder().decode(data, context: .init(format: format))
        let pixel = try #require(Bitmap(platformImage: decoded)).pixel(x: 8, y: 8)
        #expect(abs(Int(pixel.r) - 230) <= 3 && abs(Int(pixel.g) - 20) <= 3 && abs(Int(pixel.b) - 20) <= 3, "\(pixel)")
    }

    /// As `truncatedJPEGsFail` on Linux: a JPEG without its end-of-image marker fails.
    @Test func aJPEGCutBeforeItsEndMarkerFails() throws {
        let data = try ImageIOEncoder().encode(try ImageIOCodecs.halves(width: 120, height: 80), as: .jpeg, quality: 0.9)
        for cut in [data.count - 1, data.count - 2] {
            #expect(throws: ImagePipelineError.self, "cut at \(cut)") {
                try ImageIODecoder().decode(data.prefix(cut), context: .init(format: .jpeg))
            }
        }
        #expect(try ImageIODecoder().decode(data, context: .init(format: .jpeg)).pixelWidth == 120)
    }

    @Test func upscalingEnlargesOnlyWhenAllowed() throws {
        let data = try ImageIOEncoder().encode(try ImageIOCodecs.halves(width: 40, height: 30), as: .png)
        let kept = try ImageIODecoder().decode(data, context: .init(format: .png, thumbnail: .init(maxPixelSize: 100)))
        #expect((kept.pixelWidth, kept.pixelHeight) == (40, 30))
        let enlarged = try ImageIODecoder().decode(
            data, context: .init(format: .png, thumbnail: .init(maxPixelSize: 100, allowsUpscaling: true)))
        #expect((enlarged.pixelWidth, enlarged.pixelHeight) == (100, 75))
    }

    @Test func jpegCompositesTransparencyOverWhite() throws {
        let transparent = Bitmap(width: 8, height: 8, pixels: [UInt8](repeating: 0, count: 8 * 8 * 4)).platformImage
        let data = try ImageIOEncoder().encode(transparent, as: .jpeg, quality: 1)
        let pixel = try #require(Bitmap(platformImage: try ImageIODecoder().decode(data, context: .init(format: .jpeg)))).pixel(x: 4, y: 4)
        #expect(pixel.r >= 250 && pixel.g >= 250 && pixel.b >= 250 && pixel.a == 255, "\(pixel)")
    }

    /// An opaque original gives opaque results where the step adds no transparency.
    @Test func opaqueInputStaysOpaqueThroughResizeCropAndBlur() throws {
        let data = try ImageIOEncoder().encode(try ImageIOCodecs.halves(width: 200, height: 100), as: .jpeg, quality: 0.9)
        let decoded = try ImageIODecoder().decode(data, context: .init(format: .jpeg))
        let processors: [any ImageProcessing] = [ImageProcessors.Resize(width: 50), ImageProcessors.Crop(x: 0, y: 0, width: 20, height: 20),
                                                 ImageProcessors.GaussianBlur(radius: 2)]
        for processor in processors {
            let alpha = try Self.cgImage(try processor.process(decoded)).alphaInfo
            #expect([CGImageAlphaInfo.none, .noneSkipFirst, .noneSkipLast].contains(alpha), "\(processor.identifier): \(alpha)")
        }
        let rounded = try Self.cgImage(try ImageProcessors.RoundedCorners(radius: 8).process(decoded))
        #expect(![CGImageAlphaInfo.none, .noneSkipFirst, .noneSkipLast].contains(rounded.alphaInfo))
    }

    /// A crop owns its pixels: the memory cache's count of it is what it keeps alive.
    @Test func aCropDoesNotShareItsParentsPixels() throws {
        let parent = try ImageIOCodecs.halves(width: 400, height: 300)
        let crop = try Self.cgImage(try ImageProcessors.Crop(x: 10, y: 10, width: 30, height: 20).process(parent))
        let parentBytesPerRow = try Self.cgImage(parent).bytesPerRow
        #expect(crop.bytesPerRow < parentBytesPerRow)
        #expect((crop.width, crop.height) == (30, 20))
    }
}
#endif
