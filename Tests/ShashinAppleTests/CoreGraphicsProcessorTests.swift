// The Core Graphics processors exist only on Apple platforms; on Linux this file is empty (CI
// here runs Linux only, so these tests have not been run yet: they mirror the Linux processor
// tests' expectations).
#if canImport(ImageIO)
import CoreGraphics
import Foundation
import Shashin
import Testing
#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

@Suite struct CoreGraphicsProcessors {
    /// RGBA8 of the pixel at (x, y), read back through a bitmap context.
    static func rgba(_ image: PlatformImage, _ x: Int, _ y: Int) throws -> [UInt8] {
        #if canImport(UIKit)
        let cgImage = try #require(image.cgImage)
        #else
        let cgImage = try #require(image.cgImage(forProposedRect: nil, context: nil, hints: nil))
        #endif
        let space = try #require(CGColorSpace(name: CGColorSpace.sRGB))
        var pixel = [UInt8](repeating: 0, count: 4)
        // The context draws into `pixel`'s storage, whose address holds only inside this closure:
        // the context is made, drawn with and released there.
        try pixel.withUnsafeMutableBytes { storage in
            let context = try #require(CGContext(data: storage.baseAddress, width: 1, height: 1, bitsPerComponent: 8,
                                                 bytesPerRow: 4, space: space,
                                                 bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue))
            context.draw(cgImage, in: CGRect(x: -x, y: y - cgImage.height + 1, width: cgImage.width, height: cgImage.height))
        }
        return pixel
    }

    @Test func resizeCropAndCircleGiveTheSizesTheLinuxTestsExpect() throws {
        let image = try ImageIOCodecs.halves(width: 400, height: 200)
        let fit = try ImageProcessors.Resize(width: 100, height: 100, contentMode: .aspectFit).process(image)
        #expect(ImageIOCodecs.pixelSize(fit) == (100, 50))
        let fill = try ImageProcessors.Resize(width: 80, height: 80, crop: true).process(image)
        #expect(ImageIOCodecs.pixelSize(fill) == (80, 80))
        let crop = try ImageProcessors.Crop(x: 10, y: 20, width: 30, height: 40).process(image)
        #expect(ImageIOCodecs.pixelSize(crop) == (30, 40))
        #expect(ImageIOCodecs.pixelSize(try ImageProcessors.Circle().process(image)) == (200, 200))
    }

    @Test func aResizePastTheContextsPixelLimitFailsNamingItAndPassesUnderTheDefault() throws {
        let image = try ImageIOCodecs.halves(width: 50, height: 40)
        let upscale = ImageProcessors.Resize(width: 200, upscale: true)
        #expect(throws: ImagePipelineError.processingFailed(identifier: upscale.identifier,
                                                            reason: "The target size 200×160 is over the limit of 10000 pixels")) {
            try upscale.process(image, context: ImageProcessingContext(maxPixelCount: 10_000))
        }
        #expect(ImageIOCodecs.pixelSize(try upscale.process(image)) == (200, 160))
    }

    @Test func roundedCornersMakeTheCornersTransparentAndKeepTheCentre() throws {
        let rounded = try ImageProcessors.RoundedCorners(radius: 20).process(try ImageIOCodecs.halves(width: 100, height: 60))
        #expect(try Self.rgba(rounded, 0, 0)[3] == 0)
        #expect(try Self.rgba(rounded, 99, 59)[3] == 0)
        #expect(try Self.rgba(rounded, 25, 30) == [255, 0, 0, 255])
    }

    @Test func blurKeepsTheSizeAndAFlatAreaFlat() throws {
        let image = try ImageIOCodecs.halves(width: 120, height: 80)
        let blurred = try ImageProcessors.GaussianBlur(radius: 4).process(image)
        #expect(ImageIOCodecs.pixelSize(blurred) == (120, 80))
        #expect(try Self.rgba(blurred, 5, 40) == [255, 0, 0, 255])
        let edge = try Self.rgba(blurred, 60, 40)
        #expect(edge[0] > 40 && edge[2] > 40, "the edge between red and blue is mixed: \(edge)")
    }

    @Test func identifiersAreTheSameAsOnLinux() {
        #expect(ImageProcessors.Resize(width: 300).identifier == "resize(w=300,h=auto,fit,noCrop,noUpscale)")
        #expect(ImageProcessors.GaussianBlur(radius: 4).identifier == "gaussianBlur(r=4)")
        #expect(ImageProcessors.RoundedCorners(radius: 12).identifier == "roundedCorners(r=12)")
    }
}
#endif
