// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ShashinCore
import ShashinVips
import Testing

/// EXIF orientation is applied: the bitmap is what a viewer shows, not what the file stores.
@Suite struct OrientationDecoding {
    /// A 96×64 JPEG of four coloured quadrants carrying `orientation`.
    static func jpeg(orientation: UInt16, width: Int = 96, height: Int = 64) throws -> Data {
        let plain = try VipsImageEncoder().encodeBitmap(TestImages.quadrants(width: width, height: height), as: .jpeg, quality: 0.95)
        return CraftedFiles.jpeg(plain, withOrientation: orientation)
    }

    /// For each EXIF orientation, the stored quadrant a viewer sees at top-left, top-right,
    /// bottom-right and bottom-left (stored quadrants are numbered the same way, 0...3).
    static let displayedQuadrants: [UInt16: [Int]] = [
        1: [0, 1, 2, 3],
        2: [1, 0, 3, 2], // mirrored left-right
        3: [2, 3, 0, 1], // turned 180°
        4: [3, 2, 1, 0], // mirrored top-bottom
        5: [0, 3, 2, 1], // transposed
        6: [3, 0, 1, 2], // turned 90° clockwise to view
        7: [2, 1, 0, 3], // transversed
        8: [1, 2, 3, 0], // turned 90° counter-clockwise to view
    ]

    @Test(arguments: 1...8)
    func everyExifOrientationIsAppliedToSizeAndPixels(orientation: Int) throws {
        let decoded = try VipsImageDecoder().decodeBitmap(try Self.jpeg(orientation: UInt16(orientation)), context: .init(format: .jpeg))
        let swapsSides = orientation >= 5
        #expect(decoded.width == (swapsSides ? 64 : 96) && decoded.height == (swapsSides ? 96 : 64))
        #expect(TestImages.quadrantIndices(of: decoded) == Self.displayedQuadrants[UInt16(orientation)]!.map { Optional($0) })
    }

    @Test(arguments: [6, 8])
    func aThumbnailOfARotatedPhotoIsSizedByItsUprightSides(orientation: Int) throws {
        let data = try Self.jpeg(orientation: UInt16(orientation), width: 1200, height: 900)
        let decoded = try VipsImageDecoder().decodeBitmap(data, context: .init(format: .jpeg, thumbnail: .init(maxPixelSize: 256)))
        #expect(decoded.width == 192 && decoded.height == 256)
        #expect(TestImages.quadrantIndices(of: decoded) == Self.displayedQuadrants[UInt16(orientation)]!.map { Optional($0) })
    }
}
#endif
