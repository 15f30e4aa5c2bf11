#if canImport(ImageIO)
import Foundation
import ImageIO
import ShashinCore
#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

/// The default encoder on Apple platforms: ImageIO's `CGImageDestination`. JPEG, PNG, GIF and
/// HEIC everywhere; WebP and AVIF only where the system's ImageIO writes them (it throws
/// `ImageIOEncoder.Failure` otherwise; ImageIO has no WebP writer, so the disk cache stores
/// processed WebP results as PNG). `quality` is ImageIO's lossy compression quality;
/// `isLossless` asks for quality 1. JPEG has no alpha: a transparent image is composited over
/// white first, as on Linux.
///
/// This file is not compiled by the Linux CI; `make check-apple-shape` compiles the code that
/// uses it against a stand-in with the same signatures.
public struct ImageIOEncoder: ImageEncoding {
    /// Why an image could not be encoded.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The format that was asked for.
        public let format: ImageFormat
        /// What went wrong.
        public let reason: String
        /// A sentence saying what went wrong.
        public var description: String { "Failed to encode \(format): \(reason)" }
    }

    /// Creates the encoder.
    public init() {}

    /// Encodes `image` as `options` say.
    public func encode(_ image: PlatformImage, options: ImageEncodingOptions) throws -> Data {
        let format = options.format
        guard let type = Self.typeIdentifier(for: format) else {
            throw Failure(format: format, reason: "ImageIO has no type identifier for \(format)")
        }
        #if canImport(UIKit)
        let cgImage = image.cgImage
        #else
        let cgImage = image.cgImage(forProposedRect: nil, context: nil, hints: nil)
        #endif
        guard var cgImage else { throw Failure(format: format, reason: "The image has no bitmap") }
        if format == .jpeg, !CoreGraphicsProcessing.isOpaque(cgImage) {
            do {
                cgImage = try CoreGraphicsProcessing.flattenedOverWhite(cgImage)
            } catch {
                throw Failure(format: format, reason: String(describing: error))
            }
        }
        let data = NSMutableData()
        guard let destination = CGImageDestinationCreateWithData(data as CFMutableData, type as CFString, 1, nil) else {
            throw Failure(format: format, reason: "This system's ImageIO does not write \(format)")
        }
        // NaN passes through min and max unchanged; like VipsImageEncoder, take 0.75 for it.
        let quality = options.isLossless ? 1 : options.quality.isFinite ? min(max(options.quality, 0), 1) : 0.75
        var properties: [CFString: Any] = [kCGImageDestinationLossyCompressionQuality: quality]
        if format == .jpeg, options.isProgressive {
            properties[kCGImagePropertyJFIFDictionary] = [kCGImagePropertyJFIFIsProgressive: true]
        }
        CGImageDestinationAddImage(destination, cgImage, properties as CFDictionary)
        guard CGImageDestinationFinalize(destination) else {
            throw Failure(format: format, reason: "ImageIO failed to write the image")
        }
        return data as Data
    }

    private static func typeIdentifier(for format: ImageFormat) -> String? {
        switch format {
        case .jpeg: "public.jpeg"
        case .png: "public.png"
        case .gif: "com.compuserve.gif"
        case .heic: "public.heic"
        case .avif: "public.avif"
        case .webp: "org.webmproject.webp"
        case .bmp: "com.microsoft.bmp"
        case .tiff: "public.tiff"
        }
    }
}
#endif
