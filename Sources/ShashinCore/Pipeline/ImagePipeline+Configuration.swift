import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ImagePipeline {
    /// Everything a pipeline is built from. The defaults suit a scrolling list of remote images:
    /// a memory cache, six downloads at a time, decoding on every core.
    ///
    /// ```swift
    /// var configuration = ImagePipeline.Configuration()     // `import Shashin` wires the decoder
    /// configuration.maxConcurrentDownloads = 3
    /// configuration.requestModifier = { request in
    ///     var request = request
    ///     request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    ///     return request
    /// }
    /// ```
    public struct Configuration: Sendable {
        /// Loads bytes; default `URLSessionDataLoader.shared`.
        public var dataLoader: any DataLoading
        /// Chooses the decoder for each image from its sniffed format. `import Shashin` makes the
        /// platform's decoder (ImageIO or libvips) its default; register your own to add a format
        /// or replace a built-in one.
        ///
        /// ```swift
        /// configuration.decoders.register(MyWebPDecoder(), for: .webp)
        /// ```
        public var decoders: ImageDecoderRegistry
        /// One decoder for every format. Reading it gives `decoders`; setting it replaces every
        /// registration with a registry whose default decoder is the new one.
        public var decoder: any ImageDecoding {
            get { decoders }
            set { decoders = ImageDecoderRegistry(defaultDecoder: newValue) }
        }
        /// Encodes processed images (for the disk cache); `import Shashin` gives the platform's
        /// encoder. `nil` here: processed images are not encoded.
        public var encoder: (any ImageEncoding)?
        /// Decoded images kept in memory; default a `MemoryCache()`; `nil` turns it off.
        public var memoryCache: (any ImageCaching)?
        /// Downloads at once; default 6.
        public var maxConcurrentDownloads: Int = 6
        /// Decodes at once; default the number of active cores.
        public var maxConcurrentDecodes: Int = ProcessInfo.processInfo.activeProcessorCount
        /// Processing steps at once; default the number of active cores.
        public var maxConcurrentProcessing: Int = ProcessInfo.processInfo.activeProcessorCount
        /// The largest response body accepted; default 50 MB.
        public var maxResponseBytes: Int = 50 << 20
        /// The most pixels an image may declare before it is refused as a decompression bomb;
        /// default 100 megapixels.
        public var maxPixelCount: Int = ImageDecodingContext.defaultMaxPixelCount
        /// Runs before every network request (add headers, sign URLs); may suspend. Default none.
        public var requestModifier: (@Sendable (URLRequest) async throws -> URLRequest)?

        /// A configuration with the given decoder for every format, no encoder, and every other
        /// default.
        public init(decoder: any ImageDecoding) {
            self.decoders = ImageDecoderRegistry(defaultDecoder: decoder)
            self.dataLoader = URLSessionDataLoader.shared
            self.memoryCache = MemoryCache()
        }
    }
}
