import Foundation
import Testing
@testable import ShashinCore

@Suite("Thumbnail options")
struct ThumbnailOptionsTests {
    @Test func aLongestSideInPixelsIsKeptAtScaleOne() {
        #expect(ThumbnailOptions(maxPixelSize: 300).maxPixelSize == 300)
        #expect(ThumbnailOptions(maxPixelSize: 300).scale == 1)
        #expect(ThumbnailOptions(maxPixelSize: 300).description == "thumb(300)")
    }

    @Test func degenerateSizesStayUsable() {
        #expect(ThumbnailOptions(maxPixelSize: 0).maxPixelSize == 1)
        #expect(ThumbnailOptions(maxPixelSize: -5).maxPixelSize == 1)
        #expect(ThumbnailOptions(size: CGSize(width: 0, height: 0), scale: 3).maxPixelSize == 1)
        #expect(ThumbnailOptions(size: CGSize(width: Double.nan, height: 2), scale: 2).maxPixelSize == 4)
        #expect(ThumbnailOptions(size: CGSize(width: Double.infinity, height: 2), scale: 2).maxPixelSize == 1_000_000_000_000_000)
    }
}
