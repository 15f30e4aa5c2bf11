// The ImageIO codecs exist only on Apple platforms; on Linux this file is empty (CI here runs
// Linux only, so these tests have not been run yet: they mirror the libvips decoder's tests).
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

@Suite struct ImageIOCodecs {
    /// A `width` × `height` opaque image whose left half is red and right half blue.
    static func halves(width: Int, height: Int) throws -> PlatformImage {
        let context = try #require(CGContext(data: nil, width: width, height: height, bitsPerComponent: 8, bytesPerRow: 0,
                                             space: CGColorSpace(name: CGColorSpace.sRGB)!,
                                             bitmapInfo: CGImageAlphaInfo.premultipliedLast.rawValue))
        context.setFillColor(red: 1, green: 0, blue: 0, alpha: 1)
        context.fill(CGRect(x: 0, y: 0, width: width / 2, height: height))
        context.setFillColor(red: 0, green: 0, blue: 1, alpha: 1)
        context.fill(CGRect(x: width / 2, y: 0, width: width - width / 2, height: height))
        let image = try #require(context.makeImage())
        #if canImport(UIKit)
        return UIImage(cgImage: image)
        #else
        return NSImage(cgImage: image, size: NSSize(width: width, height: height))
        #endif
    }

    static func pixelSize(_ image: PlatformImage) -> (Int, Int) {
        (image.pixelWidth, image.pixelHeight)
    }

    @Test(arguments: [ImageFormat.jpeg, .png, .gif, .heic])
    func encodedImagesDecodeBackToTheirSize(format: ImageFormat) throws {
        let data = try ImageIOEncoder().encode(try Self.halves(width: 64, height: 48), as: format, quality: 0.9)
        #expect(ImageFormat(sniffing: data) == format)
        let decoded = try ImageIODecoder().decode(data, context: .init(format: format))
        #expect(Self.pixelSize(decoded) == (64, 48))
        #expect(decoded.animation == nil)
    }

    @Test func aThumbnailIsDecodedAtTheRequestedSize() throws {
        let data = try ImageIOEncoder().encode(try Self.halves(width: 400, height: 300), as: .jpeg, quality: 0.9)
        let thumbnail = try ImageIODecoder().decode(data, context: .init(format: .jpeg, thumbnail: .init(maxPixelSize: 100)))
        #expect(Self.pixelSize(thumbnail) == (100, 75))
    }

    @Test func anImageOverThePixelLimitIsRefusedFromItsHeader() throws {
        let data = try ImageIOEncoder().encode(try Self.halves(width: 64, height: 48), as: .png)
        #expect(throws: ImagePipelineError.imageTooLarge(width: 64, height: 48, limit: 3071)) {
            try ImageIODecoder().decode(data, context: .init(format: .png, maxPixelCount: 3071))
        }
    }

    @Test(arguments: [ImageFormat.jpeg, .png])
    func aFileCutInHalfFails(format: ImageFormat) throws {
        let data = try ImageIOEncoder().encode(try Self.halves(width: 300, height: 200), as: format, quality: 0.9)
        #expect(throws: ImagePipelineError.self) {
            try ImageIODecoder().decode(data.prefix(data.count / 2), context: .init(format: format))
        }
    }

    @Test func anAnimatedGIFKeepsItsDataAndFrameCount() throws {
        let data = NSMutableData()
        let destination = try #require(CGImageDestinationCreateWithData(data as CFMutableData, "com.compuserve.gif" as CFString, 3, nil))
        let frame = try Self.halves(width: 20, height: 10)
        #if canImport(UIKit)
        let cgImage = try #require(frame.cgImage)
        #else
        let cgImage = try #require(frame.cgImage(forProposedRect: nil, context: nil, hints: nil))
        #endif
        for _ in 0..<3 { CGImageDestinationAddImage(destination, cgImage, nil) }
        #expect(CGImageDestinationFinalize(destination))
        let decoded = try ImageIODecoder().decode(data as Data, context: .init(format: .gif))
        #expect(decoded.animation?.frameCount == 3)
        #expect(decoded.animation?.data == data as Data)
    }

    @Test func theDefaultConfigurationUsesImageIO() {
        let configuration = ImagePipeline.Configuration()
        #expect(configuration.decoders.defaultDecoder is ImageIODecoder)
        #expect(configuration.encoder is ImageIOEncoder)
    }
}
#endif
