import Foundation
import Shashin

/// A deterministic list of generated images of mixed formats and sizes, like a photo feed: most
/// are modest (64–1024 px), some medium (up to 2400 px), a few camera-sized (4000×3000).
///
/// The same `count` and `seed` give the same list everywhere, so a demo process and a separate
/// `shashin serve` agree on the paths without talking.
///
/// ```swift
/// let gallery = Gallery(count: 300, seed: 1)
/// try await gallery.pregenerate()                 // encode everything before timing starts
/// let urls = gallery.urls(on: server)
/// ```
public struct Gallery: Sendable, Hashable {
    /// The images, in display order.
    public let images: [ImageSpec]
    /// The seed the list came from.
    public let seed: UInt64

    /// Builds a list of `count` images from `seed`.
    ///
    /// Formats repeat a shuffled pattern of ten — 5 JPEG, 2 PNG, 2 WebP, 1 GIF — so every block of
    /// ten holds all four. Every 25th image (the 13th, 38th, ...) is camera-sized: 4000×3000 or
    /// 3000×4000 JPEG. About one in six of the rest is medium (1200–2400 px on the long side;
    /// PNG at most 1600 px); the others are 64–1024 px (GIF at most 480 px).
    public init(count: Int, seed: UInt64 = 1) {
        self.seed = seed
        var random = SeededRandom(seed: seed)
        let pattern: [ImageFormat] = [.jpeg, .jpeg, .jpeg, .jpeg, .jpeg, .png, .png, .webp, .webp, .gif]
        var formats: [ImageFormat] = []
        var images: [ImageSpec] = []
        images.reserveCapacity(max(0, count))
        let aspects: [(Int, Int)] = [(1, 1), (4, 3), (3, 4), (3, 2), (2, 3), (16, 9), (9, 16)]
        for index in 0..<max(0, count) {
            if formats.isEmpty { formats = Self.shuffled(pattern, using: &random) }
            var format = formats.removeLast()
            let imageSeed = random.next()
            let width: Int, height: Int
            if index % 25 == 12 {
                format = .jpeg
                (width, height) = random.unit() < 0.75 ? (4000, 3000) : (3000, 4000)
            } else {
                var longSide = random.unit() < 1.0 / 6 ? random.int(in: 1200...2400) : random.int(in: 64...1024)
                switch format {
                case .png: longSide = min(longSide, 1600)
                case .gif: longSide = min(longSide, 480)
                default: break
                }
                let (a, b) = random.pick(aspects)
                let shortSide = max(16, longSide * min(a, b) / max(a, b))
                (width, height) = a >= b ? (longSide, shortSide) : (shortSide, longSide)
            }
            images.append(ImageSpec(format: format, width: width, height: height, seed: imageSeed))
        }
        self.images = images
    }

    /// The number of images.
    public var count: Int { images.count }

    /// The images' paths, such as `/gen/123-640x480.jpg`.
    public var paths: [String] { images.map(\.path) }

    /// The images' URLs on `server`.
    public func urls(on server: ImageServer) -> [URL] {
        images.map(server.url(for:))
    }

    /// The sum of the images' decoded sizes (RGBA8), to size a memory cache against.
    public var totalPixelBytes: Int {
        images.reduce(0) { $0 + $1.pixelByteCount }
    }

    /// Encodes every image not yet encoded, in parallel, so serving them later costs no encoding.
    /// - Parameters:
    ///   - generator: Where the bytes are kept; use the one the server uses. Default
    ///     ``ImageGenerator/shared``.
    ///   - maxConcurrency: Images encoded at once. Default: the number of cores.
    public func pregenerate(using generator: ImageGenerator = .shared,
                            maxConcurrency: Int = ProcessInfo.processInfo.activeProcessorCount) async throws {
        try await generator.pregenerate(images, maxConcurrency: maxConcurrency)
    }

    private static func shuffled<T>(_ items: [T], using random: inout SeededRandom) -> [T] {
        var items = items
        for i in stride(from: items.count - 1, to: 0, by: -1) {
            items.swapAt(i, random.int(in: 0...i))
        }
        return items
    }
}
