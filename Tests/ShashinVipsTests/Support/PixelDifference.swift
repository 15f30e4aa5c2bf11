// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import ShashinCore

/// How two same-sized bitmaps differ, channel by channel.
struct PixelDifference: CustomStringConvertible {
    /// Channels (of `width * height * 4`) that are not equal.
    let differingChannels: Int
    /// The largest absolute difference of one channel.
    let maximum: Int
    /// The first differing pixel, for messages.
    let first: (x: Int, y: Int, actual: [UInt8], expected: [UInt8])?

    init(_ actual: Bitmap, _ expected: Bitmap) {
        precondition(actual.width == expected.width && actual.height == expected.height)
        var differing = 0, maximum = 0
        var first: (x: Int, y: Int, actual: [UInt8], expected: [UInt8])?
        for i in 0..<actual.pixels.count where actual.pixels[i] != expected.pixels[i] {
            differing += 1
            maximum = max(maximum, abs(Int(actual.pixels[i]) - Int(expected.pixels[i])))
            if first == nil {
                let p = i / 4 * 4
                first = (p / 4 % actual.width, p / 4 / actual.width, Array(actual.pixels[p..<p + 4]), Array(expected.pixels[p..<p + 4]))
            }
        }
        self.differingChannels = differing
        self.maximum = maximum
        self.first = first
    }

    var description: String {
        guard let first else { return "identical" }
        return "\(differingChannels) channels differ, by up to \(maximum); first at (\(first.x), \(first.y)): \(first.actual) instead of \(first.expected)"
    }
}
#endif
