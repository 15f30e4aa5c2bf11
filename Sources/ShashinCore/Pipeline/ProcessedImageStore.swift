import Foundation

/// Processed results in the disk cache (`DiskCachePolicy.processed` or `.all`): encoded in the
/// original's format when it can hold them (PNG when transparency appears in a JPEG or GIF),
/// under a key of their own. A value: the storage and codecs are thread-safe.
struct ProcessedImageStore: Sendable {
    let storage: any DataCaching
    let encoder: any ImageEncoding
    let decoder: any ImageDecoding
    let quality: Double
    let maxPixelCount: Int

    /// The storage key of a processed result: never a URL alone, so it cannot meet an original's.
    static func key(for cacheKey: ImageCacheKey) -> String { "processed " + cacheKey.description }

    /// Whether a request's result counts as processed: it has a thumbnail or processors.
    static func isProcessed(_ request: ImageRequest) -> Bool {
        request.thumbnail != nil || !request.processors.isEmpty
    }

    /// The stored result, decoded as is; `nil` on a miss. A result that no longer decodes is removed.
    func image(for cacheKey: ImageCacheKey) throws -> PlatformImage? {
        let key = Self.key(for: cacheKey)
        guard let entry = try storage.entry(forKey: key) else { return nil }
        let context = ImageDecodingContext(format: ImageFormat(sniffing: entry.data), thumbnail: nil, maxPixelCount: maxPixelCount)
        do {
            return try decoder.decode(entry.data, context: context)
        } catch {
            try? storage.removeEntry(forKey: key)
            return nil
        }
    }

    /// Encodes and stores `image`.
    func store(_ image: PlatformImage, originalFormat: ImageFormat?, for cacheKey: ImageCacheKey) throws {
        let format = Self.format(original: originalFormat, hasTransparency: image.mayHaveTransparency)
        let data = try encoder.encode(image, as: format, quality: quality)
        try storage.store(data, metadata: nil, forKey: Self.key(for: cacheKey))
    }

    /// The format a processed result is stored in: the original's when it can hold the result.
    static func format(original: ImageFormat?, hasTransparency: Bool) -> ImageFormat {
        switch original {
        case .webp?: .webp
        case .jpeg?: hasTransparency ? .png : .jpeg
        default: .png
        }
    }
}
