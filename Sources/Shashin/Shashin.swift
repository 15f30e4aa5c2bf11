@_exported import ShashinCore
import Foundation

#if canImport(ImageIO)
/// The platform's default decoder: ImageIO on Apple platforms.
public typealias PlatformImageDecoder = ImageIODecoder
#else
@_exported import ShashinVips
/// The platform's default decoder: libvips where ImageIO does not exist.
public typealias PlatformImageDecoder = VipsImageDecoder
/// The platform's default encoder: libvips where ImageIO does not exist.
public typealias PlatformImageEncoder = VipsImageEncoder
#endif

extension ImagePipeline.Configuration {
    /// The default configuration with the platform's decoder: a memory cache, URLSession, six
    /// downloads at a time.
    ///
    /// ```swift
    /// let pipeline = ImagePipeline(configuration: .init())
    /// ```
    public init() {
        #if canImport(ImageIO)
        self.init(decoder: PlatformImageDecoder())
        #else
        self.init(decoder: PlatformImageDecoder(), encoder: PlatformImageEncoder())
        #endif
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
