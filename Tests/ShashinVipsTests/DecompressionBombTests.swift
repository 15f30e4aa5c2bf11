// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ShashinCore
import ShashinVips
import Testing

/// Files that declare, or inflate to, far more than they hold are refused before the pixels
/// exist; see `DecompressionBombMemory` for the memory each one costs.
@Suite struct DecompressionBombs {
    static let limit = ImageDecodingContext.defaultMaxPixelCount
    static let thumbnails: [ThumbnailOptions?] = [nil, .init(maxPixelSize: 256)]

    @Test(arguments: thumbnails)
    func aJPEGDeclaring65535SquaredPixelsIsTooLarge(thumbnail: ThumbnailOptions?) throws {
        let bomb = try CraftedBombs.jpeg(width: 65535, height: 65535)
        #expect(throws: ImagePipelineError.imageTooLarge(width: 65535, height: 65535, limit: Self.limit)) {
            try VipsImageDecoder().decode(bomb, context: .init(format: .jpeg, thumbnail: thumbnail))
        }
    }

    @Test(arguments: thumbnails)
    func aGIFFrameOf65535SquaredInATinyScreenIsTooLarge(thumbnail: ThumbnailOptions?) throws {
        // libnsgif grows the screen to the frame, as browsers do; the header then says 65535².
        let bomb = CraftedBombs.gif(screenWidth: 10, screenHeight: 10, frameWidth: 65535, frameHeight: 65535)
        #expect(throws: ImagePipelineError.imageTooLarge(width: 65535, height: 65535, limit: Self.limit)) {
            try VipsImageDecoder().decode(bomb, context: .init(format: .gif, thumbnail: thumbnail))
        }
    }

    @Test func aGIFFrameLargerThanItsScreenWithinTheLimitDecodesAtTheFramesSize() throws {
        // The other half of the rule above: the image is the union of screen and frame.
        let gif = CraftedBombs.gif(screenWidth: 10, screenHeight: 10, frameWidth: 30, frameHeight: 20)
        let result = Result { try VipsImageDecoder().decodeBitmap(gif, context: .init(format: .gif, maxPixelCount: 30 * 20)) }
        if case .success(let bitmap) = result { #expect(bitmap.width <= 30 && bitmap.height <= 20) }
        #expect(throws: ImagePipelineError.imageTooLarge(width: 30, height: 20, limit: 599)) {
            try VipsImageDecoder().decode(gif, context: .init(format: .gif, maxPixelCount: 599))
        }
    }

    @Test func aGIFScreenOf65535SquaredAroundATinyFrameAllocatesOnlyTheFrame() throws {
        // libnsgif treats an absurd screen as absent (as browsers do) and uses the frame's size:
        // nothing of 65535² is ever allocated. The frame's data is one code, so it fails or
        // decodes tiny; either way never 16 GB.
        let gif = CraftedBombs.gif(screenWidth: 65535, screenHeight: 65535, frameWidth: 10, frameHeight: 10)
        switch Result(catching: { try VipsImageDecoder().decodeBitmap(gif, context: .init(format: .gif)) }) {
        case .success(let bitmap): #expect(bitmap.width <= 10 && bitmap.height <= 10)
        case .failure(let error): #expect(error is ImagePipelineError)
        }
    }

    @Test(arguments: thumbnails)
    func anAnimatedWebPCanvasOverTheLimitIsTooLarge(thumbnail: ThumbnailOptions?) throws {
        let bomb = try CraftedBombs.webp(canvasWidth: 16383, height: 16383, animated: true)
        #expect(throws: ImagePipelineError.imageTooLarge(width: 16383, height: 16383, limit: Self.limit)) {
            try VipsImageDecoder().decode(bomb, context: .init(format: .webp, thumbnail: thumbnail))
        }
    }

    /// WebP's own limit is 16383 a side: larger canvases, and a still image whose canvas is not
    /// its frame's size, are refused by libwebp/libvips as malformed.
    @Test(arguments: [(UInt32(65535), true), (65535, false), (16383, false)])
    func webPCanvasesWebPItselfForbidsFailToDecode(side: UInt32, animated: Bool) throws {
        let bomb = try CraftedBombs.webp(canvasWidth: side, height: side, animated: animated)
        let error = #expect(throws: ImagePipelineError.self) {
            try VipsImageDecoder().decode(bomb, context: .init(format: .webp))
        }
        guard case .decodingFailed(.webp, _)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
    }

    @Test(arguments: ["zTXt", "iCCP", "iTXt"])
    func aPNGChunkInflatingTo64MBIsRefused(type: String) throws {
        let bomb = CraftedBombs.png(withCompressedChunk: type, inflatingTo: 64 << 20)
        #expect(bomb.count < 100_000)
        let error = #expect(throws: ImagePipelineError.self) {
            try VipsImageDecoder().decode(bomb, context: .init(format: .png))
        }
        guard case .decodingFailed(.png, let reason)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(reason.contains(type) && reason.contains("decompression bomb"))
    }

    @Test(arguments: ["zTXt", "iTXt"])
    func aPNGWithOrdinaryCompressedTextDecodes(type: String) throws {
        let png = CraftedBombs.png(withCompressedChunk: type, inflatingTo: 64 << 10)
        let bitmap = try VipsImageDecoder().decodeBitmap(png, context: .init(format: .png))
        #expect(bitmap.width == 16 && bitmap.pixel(x: 3, y: 3) == (128, 128, 128, 255))
    }

    @Test func manySmallTextChunksAddingUpPastTheFileLimitAreRefused() throws {
        // Each 3 MB passes alone; three of them pass the 8 MB a file may inflate to.
        let one = [UInt8](CraftedBombs.png(withCompressedChunk: "zTXt", inflatingTo: 3 << 20))
        // Splice the zTXt chunk (after the signature and the 25-byte IHDR chunk) in three times.
        let zTXtStart = 8 + 25
        let zTXtLength = Int(one[zTXtStart]) << 24 | Int(one[zTXtStart + 1]) << 16 | Int(one[zTXtStart + 2]) << 8 | Int(one[zTXtStart + 3])
        let chunk = one[zTXtStart..<zTXtStart + 12 + zTXtLength]
        let triple = Data(one[..<zTXtStart] + chunk + chunk + one[zTXtStart...])
        #expect(throws: ImagePipelineError.self) {
            try VipsImageDecoder().decode(triple, context: .init(format: .png))
        }
        #expect(throws: Never.self) { try VipsImageDecoder().decode(Data(one), context: .init(format: .png)) }
    }
}
#endif
