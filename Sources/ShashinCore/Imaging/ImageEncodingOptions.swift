/// What an encoder writes: the format and, for lossy formats, how much to keep.
///
/// ```swift
/// ImageEncodingOptions.jpeg(quality: 0.8)
/// ImageEncodingOptions.webp(lossless: true)
/// ImageEncodingOptions(fileExtension: "png")   // .png
/// ```
public struct ImageEncodingOptions: Sendable, Hashable, CustomStringConvertible {
    /// The format to write.
    public var format: ImageFormat
    /// 0...1: higher keeps more detail in bigger files. Applies to JPEG and lossy WebP; PNG and
    /// GIF ignore it. Default `defaultQuality`.
    public var quality: Double
    /// WebP (and HEIC/AVIF where the encoder supports it): write losslessly, every pixel kept.
    /// Default `false`.
    public var isLossless: Bool
    /// JPEG: write a progressive file, whose first scans already give the whole picture, coarse,
    /// so a viewer can show a preview while the rest downloads. Other formats ignore it; an
    /// encoder that cannot write one writes a baseline JPEG. Default `false`.
    public var isProgressive = false

    /// 0.85: photos look like the original at a fraction of PNG's size.
    public static let defaultQuality = 0.85

    /// Creates options for `format`.
    public init(format: ImageFormat, quality: Double = ImageEncodingOptions.defaultQuality, isLossless: Bool = false) {
        self.format = format
        self.quality = quality
        self.isLossless = isLossless
    }

    /// Options for the format a file name's extension names (`jpg`, `jpeg`, `png`, `webp`,
    /// `gif`, `heic`, `avif`; any case), or `nil` for any other extension.
    public init?(fileExtension: String, quality: Double = ImageEncodingOptions.defaultQuality) {
        let format: ImageFormat
        switch fileExtension.lowercased() {
        case "jpg", "jpeg": format = .jpeg
        case "png": format = .png
        case "webp": format = .webp
        case "gif": format = .gif
        case "heic", "heif": format = .heic
        case "avif": format = .avif
        default: return nil
        }
        self.init(format: format, quality: quality)
    }

    /// JPEG at `quality` (default 0.85), baseline or `progressive`. JPEG has no alpha:
    /// transparency is composited over white.
    public static func jpeg(quality: Double = defaultQuality, progressive: Bool = false) -> Self {
        var options = Self(format: .jpeg, quality: quality)
        options.isProgressive = progressive
        return options
    }
    /// PNG: lossless, alpha kept.
    public static var png: Self { Self(format: .png) }
    /// WebP, lossy at `quality` (default 0.85) or lossless; alpha kept either way.
    public static func webp(quality: Double = defaultQuality, lossless: Bool = false) -> Self {
        Self(format: .webp, quality: quality, isLossless: lossless)
    }
    /// GIF: a single frame with a 256-colour palette.
    public static var gif: Self { Self(format: .gif) }

    /// `jpeg(q=0.85)`, `jpeg(q=0.85,progressive)`, `png`, `webp(lossless)`: a stable text
    /// form, usable in cache keys.
    public var description: String {
        switch format {
        case .jpeg where isProgressive: "\(format)(q=\(quality),progressive)"
        case .png, .gif, .bmp, .tiff: "\(format)"
        case .webp where isLossless, .heic where isLossless, .avif where isLossless: "\(format)(lossless)"
        default: "\(format)(q=\(quality))"
        }
    }
}
