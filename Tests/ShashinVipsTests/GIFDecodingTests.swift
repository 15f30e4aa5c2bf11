// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ShashinCore
import ShashinVips
import Testing

/// GIF decodes to its first frame.
@Suite struct GIFDecoding {
    static let palette: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 0, 255), (0, 255, 0), (255, 255, 255)]

    @Test func anAnimatedGIFDecodesToItsFirstFrame() throws {
        let red = [UInt8](repeating: 0, count: 6 * 4), blue = [UInt8](repeating: 1, count: 6 * 4)
        let gif = CraftedFiles.animatedGIF(width: 6, height: 4, palette: Self.palette, frames: [red, blue, blue])
        #expect(ImageFormat(sniffing: gif) == .gif)
        let decoded = try VipsImageDecoder().decodeBitmap(gif, context: .init(format: .gif))
        #expect(decoded.width == 6 && decoded.height == 4)
        let opaqueRed: [UInt8] = [255, 0, 0, 255]
        #expect(decoded.pixels == Array([[UInt8]](repeating: opaqueRed, count: 6 * 4).joined()))
    }

    @Test func paletteIndicesMapToTheirColours() throws {
        let indices: [UInt8] = [0, 1, 2, 3, 3, 2, 1, 0]
        let gif = CraftedFiles.animatedGIF(width: 4, height: 2, palette: Self.palette, frames: [indices])
        let decoded = try VipsImageDecoder().decodeBitmap(gif, context: .init(format: .gif))
        let expected: [UInt8] = indices.flatMap { index -> [UInt8] in
            let colour = Self.palette[Int(index)]
            return [colour.0, colour.1, colour.2, 255]
        }
        #expect(decoded.pixels == expected)
    }
}
#endif
