@_exported import ShashinCore
import Foundation

#if canImport(ImageIO)
/// The platform's default decoder: ImageIO on Apple platforms.
public typealias PlatformImageDecoder = ImageIODecoder
/// The platform's default encoder: ImageIO on Apple platforms.
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
        self.init(decoder: PlatformImageDecoder())
        self.encoder = PlatformImageEncoder()
    }
}

extension ImagePipeline {
    /// A pipeline with the default configuration, for apps that need only one.
    public static let shared = ImagePipeline(configuration: .init())

    /// Creates a pipeline with the default configuration.
    public convenience init() {
        self.init(configuration: .init())
    }
}
