import Testing
import ShashinCore

@Suite("A processor's output size")
struct OutputSizeTests {
    @Test func sizesWithinTheLimitMayBeMade() {
        #expect(OutputSize.refusal(width: 1, height: 1, maxPixelCount: 1) == nil)
        #expect(OutputSize.refusal(width: 2_000, height: 500, maxPixelCount: 1_000_000) == nil)
    }

    @Test func aSideOfZeroOrLessIsRefused() {
        #expect(OutputSize.refusal(width: 0, height: 10, maxPixelCount: 100) == "The target size 0×10 has no pixels")
        #expect(OutputSize.refusal(width: 10, height: -1, maxPixelCount: 100) == "The target size 10×-1 has no pixels")
    }

    @Test func morePixelsThanTheLimitAreRefused() {
        #expect(OutputSize.refusal(width: 1_001, height: 1_000, maxPixelCount: 1_000_000)
            == "The target size 1001×1000 is over the limit of 1000000 pixels")
    }

    @Test func aProductThatOverflowsIsRefusedNotWrapped() {
        #expect(OutputSize.refusal(width: Int.max, height: 3, maxPixelCount: .max) != nil)
    }

    @Test func aSideOverWhatThePlatformAddressesIsRefused() {
        let side = Int(Int32.max) + 1
        #expect(OutputSize.refusal(width: side, height: 1, maxPixelCount: .max, maxSide: Int(Int32.max))
            == "The target size \(side)×1 has a side over 2147483647 pixels")
        #expect(OutputSize.refusal(width: side, height: 1, maxPixelCount: .max) == nil)
    }
}
