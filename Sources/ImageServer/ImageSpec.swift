import Foundation
import Shashin

/// Describes one generated test image: its format, size and the seed its pixels come from, and
/// for a JPEG whether it is progressive.
///
/// The same spec always yields the same pixels and, for a given encoder, the same bytes. A spec
/// has a URL path of its own on every ``ImageServer``: `/gen/<seed>-<width>x<height>.<ext>`,
/// where `ext` is `jpg`, `png`, `webp` or `gif`; a progressive JPEG's ends in `-progressive.jpg`.
///
/// ```swift
/// let spec = ImageSpec(format: .jpeg, width: 640, height: 480, seed: 7)
/// spec.path                                   // "/gen/7-640x480.jpg"
/// ImageSpec(path: "/gen/7-640x480.jpg") == spec // true
/// ImageSpec(format: .jpeg, width: 640, height: 480, seed: 7, progressive: true).path // "/gen/7-640x480-progressive.jpg"
/// ```
public struct ImageSpec: Sendable, Hashable, CustomStringConvertible {
    /// The encoded format: `.jpeg`, `.png`, `.webp` or `.gif`.
    public var format: ImageFormat
    /// Width in pixels, 1...``maxSide``.
    public var width: Int
    /// Height in pixels, 1...``maxSide``.
    public var height: Int
    /// Chooses the colours, shapes and noise of the picture.
    public var seed: UInt64
    /// A progressive JPEG (its first scans give the whole picture, coarse); always `false` for
    /// the other formats.
    public private(set) var isProgressive: Bool

    /// The formats a spec may name, with their file extensions.
    public static let supportedFormats: [ImageFormat: String] = [.jpeg: "jpg", .png: "png", .webp: "webp", .gif: "gif"]

    /// The longest side a spec may ask for: 16384 pixels.
    public static let maxSide = 16_384

    /// The most pixels a spec may ask for: 50 megapixels (a 4000×3000 photo is 12).
    public static let maxPixelCount = 50_000_000

    /// Creates a spec. Sizes are clamped to 1...``maxSide``; a format outside
    /// ``supportedFormats`` is replaced by `.jpeg`; `progressive` applies to JPEG only.
    public init(format: ImageFormat, width: Int, height: Int, seed: UInt64, progressive: Bool = false) {
        self.format = Self.supportedFormats[format] == nil ? .jpeg : format
        self.width = min(max(1, width), Self.maxSide)
        self.height = min(max(1, height), Self.maxSide)
        self.seed = seed
        isProgressive = progressive && self.format == .jpeg
    }

    /// Parses a path such as `/gen/7-640x480.jpg` or `/gen/7-640x480-progressive.jpg` (or just
    /// `7-640x480.jpg`); `nil` when it is not of that shape, names an unknown format, marks
    /// another format than JPEG progressive, or exceeds ``maxSide`` or ``maxPixelCount``.
    public init?(path: String) {
        var name = Substring(path)
        if name.hasPrefix(Self.routePrefix) { name = name.dropFirst(Self.routePrefix.count) }
        guard !name.contains("/"),
              let dot = name.lastIndex(of: "."),
              let format = Self.format(forExtension: name[name.index(after: dot)...]),
              let dash = name[..<dot].firstIndex(of: "-"),
              let seed = UInt64(name[..<dash]) else { return nil }
        var sizeEnd = dot
        let progressive = name[..<dot].hasSuffix(Self.progressiveSuffix)
        if progressive {
            guard format == .jpeg else { return nil }
            sizeEnd = name.index(dot, offsetBy: -Self.progressiveSuffix.count)
        }
        guard dash < sizeEnd else { return nil }
        let size = name[name.index(after: dash)..<sizeEnd].split(separator: "x", omittingEmptySubsequences: false)
        guard size.count == 2, let width = Int(size[0]), let height = Int(size[1]),
              (1...Self.maxSide).contains(width), (1...Self.maxSide).contains(height),
              width * height <= Self.maxPixelCount else { return nil }
        self.init(format: format, width: width, height: height, seed: seed, progressive: progressive)
    }

    /// The path this image is served at on any ``ImageServer``, such as `/gen/7-640x480.jpg`
    /// or `/gen/7-640x480-progressive.jpg`.
    public var path: String {
        "\(Self.routePrefix)\(seed)-\(width)x\(height)\(isProgressive ? Self.progressiveSuffix : "").\(fileExtension)"
    }

    /// How the path of a progressive JPEG ends before its extension.
    static let progressiveSuffix = "-progressive"

    /// The file extension of the format, such as `jpg`.
    public var fileExtension: String {
        Self.supportedFormats[format] ?? "jpg"
    }

    /// The `Content-Type` the server sends for this image, such as `image/jpeg`.
    public var mimeType: String { Self.mimeType(for: format) }

    /// The decoded size in bytes (RGBA8): `width * height * 4`.
    public var pixelByteCount: Int { width * height * 4 }

    /// The path, such as `/gen/7-640x480.jpg`.
    public var description: String { path }

    /// Renders the picture this spec describes, before encoding: the pixels a lossless format
    /// (PNG) decodes back to exactly.
    public func makeBitmap() -> Bitmap {
        PatternPainter(width: width, height: height, seed: seed, noiseAmplitude: noiseAmplitude).paint()
    }

    static let routePrefix = "/gen/"

    /// Lossy formats carry photos, whose grain makes their size (a 4000×3000 JPEG at quality
    /// 0.85 weighs about 2 MB); PNG and GIF carry graphics, nearly flat, which also keeps their
    /// encoding fast.
    var noiseAmplitude: Int32 {
        switch format {
        case .png, .gif: 1
        default: 16
        }
    }

    static func format(forExtension ext: Substring) -> ImageFormat? {
        switch ext.lowercased() {
        case "jpg", "jpeg": .jpeg
        case "png": .png
        case "webp": .webp
        case "gif": .gif
        default: nil
        }
    }

    static func mimeType(for format: ImageFormat) -> String {
        switch format {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .heic: "image/heic"
        case .avif: "image/avif"
        case .bmp: "image/bmp"
        case .tiff: "image/tiff"
        }
    }
}
