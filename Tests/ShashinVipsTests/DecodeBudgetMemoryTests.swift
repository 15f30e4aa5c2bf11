// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ShashinCore
import ShashinVips
import Testing

/// Peak resident memory of issue 13's shapes under the default budget: refusing each raises the
/// process's peak by less than 8 MB, where decoding them took 0.5–1.3 GB; the grey 10000² PNG
/// that streams to a thumbnail stays far under the budget it reserved.
///
/// Peak resident memory is process-wide: this suite runs with the other memory suites in a
/// process of their own (MEMORY_SUITES in the Makefile).
@Suite(.serialized) struct DecodeBudgetMemory {
    static let bound = 8 << 20
    static let thumbnail = ThumbnailOptions(maxPixelSize: 256)

    static let refused: [(name: String, data: Data, thumbnail: ThumbnailOptions?)] = [
        ("16-bit interlaced PNG 10000², thumbnail", IssueShapes.png16Interlaced, thumbnail),
        ("16-bit interlaced PNG 10000², full", IssueShapes.png16Interlaced, nil),
        ("progressive JPEG 10000², thumbnail", IssueShapes.progressiveJPEG, thumbnail),
        ("grey PNG 10000², full", IssueShapes.greyPNG, nil),
    ]

    /// Decodes once and gives the growth of the peak over the settled resident size before it.
    func peakGrowth(_ data: Data, thumbnail: ThumbnailOptions?) throws -> (Int, Result<Bitmap, any Error>) {
        _ = ResidentMemory.settledPrivateBytes()
        try #require(ResidentMemory.resetPeak(), "needs /proc/self/clear_refs (Linux)")
        let before = try #require(ResidentMemory.residentAndPeak())
        let result = Result<Bitmap, any Error> { try VipsImageDecoder().decodeBitmap(data, context: .init(format: nil, thumbnail: thumbnail)) }
        let after = try #require(ResidentMemory.residentAndPeak())
        return (after.peak - before.resident, result)
    }

    @Test func refusingEachShapeRaisesPeakMemoryByLessThan8MB() throws {
        for shape in Self.refused { _ = try? peakGrowth(shape.data, thumbnail: shape.thumbnail) } // warm-up
        var report: [String] = []
        for shape in Self.refused {
            let (growth, result) = try peakGrowth(shape.data, thumbnail: shape.thumbnail)
            report.append("\(shape.name): \(growth >> 10) KB")
            #expect(growth < Self.bound, "\(shape.name): peak grew by \(growth >> 20) MB")
            guard case .failure(ImagePipelineError.decodeMemoryExceeded) = result else {
                Issue.record("\(shape.name): \(result)"); continue
            }
        }
        print("peak growth per refused shape: " + report.joined(separator: ", "))
    }

    @Test func aStreamingThumbnailOfTheGreyPNGStaysUnder64MB() throws {
        _ = try? peakGrowth(IssueShapes.greyPNG, thumbnail: Self.thumbnail)
        let (growth, result) = try peakGrowth(IssueShapes.greyPNG, thumbnail: Self.thumbnail)
        print("grey PNG 10000² → 256 px thumbnail: peak grew by \(growth >> 20) MB")
        #expect((try? result.get())?.width == 256)
        #expect(growth < 64 << 20, "peak grew by \(growth >> 20) MB")
    }
}
#endif
