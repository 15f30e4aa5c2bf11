import Foundation
import ImageServer
import Shashin

/// The feed's rows and their images: one generated photo per row, JPEG with a WebP every fifth
/// row, 480–800 px wide (times `scale`), deterministic from the row number; the JPEGs are
/// progressive when asked.
struct FeedCatalog {
    let rows: Int
    let specs: [ImageSpec]
    /// The size rows are decoded at, the size of a cell's image view.
    let thumbnail: ThumbnailOptions

    init(rows: Int, thumbnailSize: Int, progressive: Bool = false, scale: Int = 1) {
        self.rows = rows
        self.thumbnail = ThumbnailOptions(maxPixelSize: thumbnailSize)
        specs = (0..<rows).map { row in
            let width = (480 + (row * 37) % 321) * scale
            let height = width * [3, 4, 9][row % 3] / [4, 3, 16][row % 3]
            return ImageSpec(format: row % 5 == 4 ? .webp : .jpeg, width: width, height: height, seed: 10_000 + UInt64(row),
                             progressive: progressive)
        }
    }

    func url(of row: Int, on server: ImageServer) -> URL {
        server.url(for: specs[row])
    }

    func request(for row: Int, on server: ImageServer) -> ImageRequest {
        ImageRequest(url: url(of: row, on: server), thumbnail: thumbnail)
    }

    /// Decodes a row's bytes exactly as every strategy does, for the truth the demo checks
    /// displayed images against; the pixels are read through `Bitmap(platformImage:)`, as the
    /// cells read what they show, so fingerprints compare alike on every platform.
    static func decode(_ data: Data, thumbnail: ThumbnailOptions) throws -> Bitmap {
        let context = ImageDecodingContext(format: ImageFormat(sniffing: data), thumbnail: thumbnail)
        let image = try PlatformImageDecoder().decode(data, context: context)
        guard let bitmap = Bitmap(platformImage: image) else {
            throw ImagePipelineError.decodingFailed(format: context.format, reason: "The decoded image has no bitmap")
        }
        return bitmap
    }
}

extension Bitmap {
    /// FNV-1a over the size and pixels: tells one row's image from another's.
    var fingerprint: UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for value in [UInt64(width), UInt64(height)] { hash = (hash ^ value) &* 0x100_0000_01b3 }
        for byte in pixels { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}
