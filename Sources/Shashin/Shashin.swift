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
