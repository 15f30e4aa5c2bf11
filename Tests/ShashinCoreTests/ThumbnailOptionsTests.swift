import Testing
@testable import ShashinCore

@Suite("Thumbnail options")
struct ThumbnailOptionsTests {
    @Test func pointsTimesTheScaleGiveThePixelSizeRoundedUp() {
        #expect(ThumbnailOptions(maxPointSize: 100, scale: 3).maxPixelSize == 300)
        #expect(ThumbnailOptions(maxPointSize: 100.2, scale: 2).maxPixelSize == 201)
        #expect(ThumbnailOptions(maxPointSize: 64, scale: 2, allowsUpscaling: true) == ThumbnailOptions(maxPixelSize: 128, allowsUpscaling: true))
        #expect(ThumbnailOptions(maxPointSize: 100, scale: 3).description == "thumb(300)")
    }

    @Test func degenerateSizesStayUsable() {
        #expect(ThumbnailOptions(maxPointSize: 0, scale: 3).maxPixelSize == 1)
        #expect(ThumbnailOptions(maxPointSize: -5, scale: 2).maxPixelSize == 1)
        #expect(ThumbnailOptions(maxPointSize: .nan, scale: 2).maxPixelSize == 1)
        #expect(ThumbnailOptions(maxPointSize: .infinity, scale: 2).maxPixelSize == 1_000_000_000_000_000)
    }
}
