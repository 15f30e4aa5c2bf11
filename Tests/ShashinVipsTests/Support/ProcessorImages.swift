// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import ShashinCore

/// Bitmaps drawn pixel by pixel for the processor tests.
enum ProcessorImages {
    typealias RGBA = (r: UInt8, g: UInt8, b: UInt8, a: UInt8)

    /// A `width` × `height` image whose pixel at `(x, y)` is `colour(x, y)`.
    static func draw(width: Int, height: Int, _ colour: (Int, Int) -> RGBA) -> Bitmap {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let c = colour(x, y)
                pixels += [c.r, c.g, c.b, c.a]
            }
        }
        return Bitmap(width: width, height: height, pixels: pixels)
    }

    /// One colour everywhere.
    static func solid(width: Int, height: Int, _ colour: RGBA) -> Bitmap {
        draw(width: width, height: height) { _, _ in colour }
    }

    /// `left` where `x < width / 2`, `right` elsewhere: one sharp vertical edge.
    static func halves(width: Int, height: Int, left: RGBA, right: RGBA) -> Bitmap {
        draw(width: width, height: height) { x, _ in x < width / 2 ? left : right }
    }

    /// The alpha of every pixel of row `y`.
    static func alphaRow(_ bitmap: Bitmap, y: Int) -> [UInt8] {
        (0..<bitmap.width).map { bitmap.pixel(x: $0, y: y).a }
    }

    /// The red value of every pixel of row `y`.
    static func redRow(_ bitmap: Bitmap, y: Int) -> [UInt8] {
        (0..<bitmap.width).map { bitmap.pixel(x: $0, y: y).r }
    }

    /// The largest difference between neighbours: how sharp the sharpest step is.
    static func steepestStep(_ values: [UInt8]) -> Int {
        zip(values, values.dropFirst()).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    /// Whether `values` never go down.
    static func isNonDecreasing(_ values: [UInt8]) -> Bool {
        zip(values, values.dropFirst()).allSatisfy { $0 <= $1 }
    }

    /// Whether `values` never go up.
    static func isNonIncreasing(_ values: [UInt8]) -> Bool {
        zip(values, values.dropFirst()).allSatisfy { $0 >= $1 }
    }
}

extension Bitmap {
    /// The pixel at `(x, y)` as an array, for `#expect` messages that show it.
    func rgba(_ x: Int, _ y: Int) -> [UInt8] {
        let p = pixel(x: x, y: y)
        return [p.r, p.g, p.b, p.a]
    }
}
#endif
