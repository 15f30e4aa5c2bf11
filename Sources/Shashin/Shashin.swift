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

#if os(Linux)
@_exported import ShashinAsyncHTTPClient
/// The platform's default loader: AsyncHTTPClient on Linux, where `URLSession` is libcurl and
/// several times slower.
public typealias PlatformDataLoader = AsyncHTTPClientDataLoader
#else
/// The platform's default loader: `URLSession` on Apple platforms.
public typealias PlatformDataLoader = URLSessionDataLoader
#endif

extension ImagePipeline.Configuration {
    /// The default configuration with the platform's decoder (the default of `decoders`; on
    /// Apple platforms also `AVFoundationVideoDecoder`, a video's first frame, as its
    /// `videoDecoder`), encoder and loader (`PlatformDataLoader.shared`: AsyncHTTPClient on
    /// Linux, URLSession on Apple platforms): a memory cache, six downloads at a time.
    ///
    /// ```swift
    /// let pipeline = ImagePipeline(configuration: .init())
    /// ```
    public init() {
        self.init(decoder: PlatformImageDecoder(), encoder: PlatformImageEncoder())
        dataLoader = PlatformDataLoader.shared
        #if canImport(AVFoundation) && canImport(ImageIO) && !os(watchOS)
        decoders.videoDecoder = AVFoundationVideoDecoder()
        #endif
    }
}

extension ImagePipeline {
    /// The name of the disk cache the default `shared` pipeline uses, in the user's caches
    /// folder (`~/.cache/shashin` on Linux); `shashin cache` and `shashin http get` look there too.
    public static let defaultDiskCacheName = "shashin"

    /// Creates a pipeline with the default configuration: a `MemoryCache` (a fifth of the
    /// process's memory budget, at most 512 MB), no disk cache, 32 MB of resume data in memory,
    /// HTTP's rules for a private cache, six downloads at a time, the platform's decoder, encoder
    /// and loader. It has no disk cache because a library must not write files that an app, a
    /// test or a server did not ask for: set `configuration.diskCache`, or use the default `shared`,
    /// which has one.
    public convenience init() {
        self.init(configuration: .init())
    }
}

extension PlatformDefaults: PlatformDefaultsProviding {
    /// The default `ImagePipeline.shared`: the default configuration and a disk cache named
    /// `ImagePipeline.defaultDiskCacheName` (memory only when it cannot be opened).
    package static func makeSharedPipeline() -> ImagePipeline {
        var configuration = ImagePipeline.Configuration()
        configuration.diskCache = try? DiskCache(name: ImagePipeline.defaultDiskCacheName)
        return ImagePipeline(configuration: configuration)
    }
}
