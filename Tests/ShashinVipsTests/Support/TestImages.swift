// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ShashinCore

/// Images made in the tests themselves.
enum TestImages {
    /// Red, green, blue and alpha vary smoothly with position: every pixel differs from its
    /// neighbours, so a lossless round trip that moved or changed any pixel is caught.
    static func gradient(width: Int, height: Int, alpha: Bool = false) -> Bitmap {
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height * 4) { buffer, count in
            var i = 0
            for y in 0..<height {
                for x in 0..<width {
                    buffer[i] = UInt8(truncatingIfNeeded: x)
                    buffer[i + 1] = UInt8(truncatingIfNeeded: y)
                    buffer[i + 2] = UInt8(truncatingIfNeeded: x &* 7 &+ y &* 3)
                    buffer[i + 3] = alpha ? UInt8(truncatingIfNeeded: 255 &- (x &+ y) % 200) : 255
                    i += 4
                }
            }
            count = width * height * 4
        }
        return Bitmap(width: width, height: height, pixels: pixels)
    }

    /// The colours of `quadrants`, clockwise from the top-left.
    static let quadrantColours: [(r: UInt8, g: UInt8, b: UInt8)] = [(230, 20, 20), (20, 200, 20), (20, 20, 230), (240, 240, 40)]

    /// Four flat quadrants (top-left, top-right, bottom-right, bottom-left in
    /// `quadrantColours`): survives JPEG and resampling, so orientation is easy to check.
    static func quadrants(width: Int, height: Int) -> Bitmap {
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height * 4) { buffer, count in
            var i = 0
            for y in 0..<height {
                for x in 0..<width {
                    let right = x >= width / 2, bottom = y >= height / 2
                    let colour = quadrantColours[bottom ? (right ? 2 : 3) : (right ? 1 : 0)]
                    buffer[i] = colour.r; buffer[i + 1] = colour.g; buffer[i + 2] = colour.b; buffer[i + 3] = 255
                    i += 4
                }
            }
            count = width * height * 4
        }
        return Bitmap(width: width, height: height, pixels: pixels)
    }

    /// Which quadrant colour index a viewer sees at the centre of each displayed quadrant.
    static func quadrantIndices(of bitmap: Bitmap, tolerance: Int = 40) -> [Int?] {
        let w = bitmap.width, h = bitmap.height
        let centres = [(w / 4, h / 4), (3 * w / 4, h / 4), (3 * w / 4, 3 * h / 4), (w / 4, 3 * h / 4)]
        return centres.map { x, y in
            let p = bitmap.pixel(x: x, y: y)
            return quadrantColours.firstIndex { c in
                abs(Int(c.r) - Int(p.r)) <= tolerance && abs(Int(c.g) - Int(p.g)) <= tolerance && abs(Int(c.b) - Int(p.b)) <= tolerance
            }
        }
    }
}
#endif
