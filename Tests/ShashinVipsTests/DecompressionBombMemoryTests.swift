// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ShashinCore
import ShashinVips
import Testing

/// The memory bound for bombs: refusing one raises the process's peak resident memory by less
/// than 8 MB (half of what a 2000×2000 RGBA image needs), where decoding any of them would need
/// gigabytes (65535² RGBA is 16 GB) or, for the PNG chunks, 64 MB per chunk.
///
/// Peak resident memory is process-wide, so this suite runs with the other memory suites in a
/// process of their own (see the Makefile), each bomb after a settle and a reset of the peak.
@Suite(.serialized) struct DecompressionBombMemory {
    static let bound = 8 << 20

    static let bombs: [(name: String, data: @Sendable () throws -> Data, thumbnail: ThumbnailOptions?)] = [
        ("PNG header 65535²", { CraftedFiles.pngHeader(width: 65535, height: 65535) }, nil),
        ("JPEG header 65535²", { try CraftedBombs.jpeg(width: 65535, height: 65535) }, nil),
        ("JPEG header 65535², thumbnail", { try CraftedBombs.jpeg(width: 65535, height: 65535) }, .init(maxPixelSize: 256)),
        ("GIF frame 65535² in a 10² screen", { CraftedBombs.gif(screenWidth: 10, screenHeight: 10, frameWidth: 65535, frameHeight: 65535) }, nil),
        ("GIF screen 65535²", { CraftedBombs.gif(screenWidth: 65535, screenHeight: 65535, frameWidth: 10, frameHeight: 10) }, nil),
        ("WebP canvas 65535²", { try CraftedBombs.webp(canvasWidth: 65535, height: 65535, animated: true) }, nil),
        ("WebP canvas 16383²", { try CraftedBombs.webp(canvasWidth: 16383, height: 16383, animated: true) }, nil),
        ("PNG zTXt → 64 MB", { CraftedBombs.png(withCompressedChunk: "zTXt", inflatingTo: 64 << 20) }, nil),
        ("PNG iCCP → 64 MB", { CraftedBombs.png(withCompressedChunk: "iCCP", inflatingTo: 64 << 20) }, nil),
        ("PNG iTXt → 64 MB", { CraftedBombs.png(withCompressedChunk: "iTXt", inflatingTo: 64 << 20) }, nil),
    ]

    @Test func refusingEachBombRaisesPeakMemoryByLessThan8MB() throws {
        let decoder = VipsImageDecoder()
        // Warm up libvips and every loader, so their one-time set-up is not counted.
        for bomb in Self.bombs { _ = try? decoder.decodeBitmap(try bomb.data(), context: .init(format: nil, thumbnail: bomb.thumbnail)) }
        var report: [String] = []
        for bomb in Self.bombs {
            let data = try bomb.data()
            _ = ResidentMemory.settledPrivateBytes()
            try #require(ResidentMemory.resetPeak(), "needs /proc/self/clear_refs (Linux)")
            let before = try #require(ResidentMemory.residentAndPeak())
            let result = Result { try decoder.decodeBitmap(data, context: .init(format: nil, thumbnail: bomb.thumbnail)) }
            let after = try #require(ResidentMemory.residentAndPeak())
            let growth = after.peak - before.resident
            report.append("\(bomb.name): \(growth >> 10) KB")
            #expect(growth < Self.bound, "\(bomb.name): peak grew by \(growth >> 20) MB")
            if case .success(let bitmap) = result {
                #expect(bitmap.width * bitmap.height <= 100, "\(bomb.name) decoded to \(bitmap)")
            }
        }
        print("peak growth per bomb: " + report.joined(separator: ", "))
    }
}
#endif
