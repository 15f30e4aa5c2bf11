@_exported import ShashinCore
import Foundation

#if canImport(ImageIO)
/// The platform's default decoder: ImageIO on Apple platforms.
public typealias PlatformImageDecoder = ImageIODecoder
/// The platform's default encoder: ImageIO on Apple platforms.
public typealias PlatformImageEncoder = ImageIOEncoder
#elseif SHASHIN_APPLE_SHAPE
/// The compile check `make check-apple-shape`: the signature-only stand-in of the ImageIO decoder.
public typealias PlatformImageDecoder = ImageIODecoder
/// The compile check `make check-apple-shape`: the signature-only stand-in of the ImageIO encoder.
public typealias PlatformImageEncoder = ImageIOEncoder
#else
@_exported import ShashinVips
/// The platform's default decoder: libvips where ImageIO does not exist.
public typealias PlatformImageDecoder = VipsImageDecoder
/// The platform's default encoder: libvips where ImageIO does not exist.
public typealias PlatformImageEncoder = VipsImageEncoder
#endif

extension ImagePipeline.Configuration {
    /// The default configuration with the platform's decoder (the default of `decoders`) and
    /// encoder: a memory cache, URLSession, six downloads at a time.
    ///
    /// ```swift
    /// let pipeline = ImagePipeline(configuration: .init())
    /// ```
    public init() {
        self.init(decoder: PlatformImageDecoder(), encoder: PlatformImageEncoder())
    }
}

extension ImagePipeline {
    /// The name of the disk cache `shared` uses, in the user's caches folder
    /// (`~/.cache/shashin` on Linux); `shashin cache` and `shashin http get` look there too.
    public static let defaultDiskCacheName = "shashin"

    /// A pipeline for apps that need only one: the default configuration plus a disk cache named
    /// `defaultDiskCacheName` in the user's caches folder (memory only if that cannot be opened).
    public static let shared: ImagePipeline = {
        var configuration = Configuration()
        configuration.diskCache = try? DiskCache(name: defaultDiskCacheName)
        return ImagePipeline(configuration: configuration)
    }()

    /// Creates a pipeline with the default configuration.
    public convenience init() {
        self.init(configuration: .init())
    }
}
