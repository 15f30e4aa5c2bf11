import ShashinCore

/// A Gaussian blur approximated by three extended box blurs per axis, in Swift.
///
/// Three passes of a box filter already look Gaussian (their kernel is a piecewise quadratic
/// with the same variance), and each pass costs a few operations per pixel whatever its width,
/// as a running sum. Integer box widths can only match a few variances exactly, so each box
/// here is "extended": `l` whole pixels either side of the centre plus a fraction `alpha` of
/// the next pixel on each side, which makes every variance reachable.
///
/// Colour is premultiplied (stored as `colour × alpha`, exact in `Float`), so transparent
/// pixels add nothing; pixels past the edges repeat the edge pixel at every pass.
extension VipsProcessing {
    /// One extended box: weights 1 for offsets `-l...l`, `alpha` for `±(l + 1)`, normalised.
    struct ExtendedBox: Equatable {
        let l: Int
        let alpha: Float
        let scale: Float

        /// The box whose variance is `variance` (pixels²).
        ///
        /// Weights 1 on `-l...l` and `a` on `±(l + 1)` have total `2l + 1 + 2a` and second
        /// moment `l(l + 1)(2l + 1)/3 + 2a(l + 1)²`; setting their ratio to `v` gives
        /// `a = (2l + 1)(v - l(l + 1)/3) / (2((l + 1)² - v))`, which is in `[0, 1)` when `l` is
        /// the largest whole radius whose plain box (variance `l(l + 1)/3`) is within `v`.
        init(variance v: Double) {
            var l = max(0, Int(((1 + 12 * v).squareRoot() - 1) / 2))
            while l > 0, Double(l * (l + 1)) / 3 > v { l -= 1 }
            while Double((l + 1) * (l + 2)) / 3 <= v { l += 1 }
            let dl = Double(l)
            let a = (2 * dl + 1) * (v - dl * (dl + 1) / 3) / (2 * ((dl + 1) * (dl + 1) - v))
            self.l = l
            self.alpha = Float(a)
            self.scale = Float(1 / (2 * dl + 1 + 2 * a))
        }
    }

    /// The three boxes whose succession has variance `sigma²`.
    static func gaussianBoxes(sigma: Double) -> [ExtendedBox] {
        Array(repeating: ExtendedBox(variance: sigma * sigma / 3), count: 3)
    }

    /// How many floats a band of the horizontally blurred image may hold (64 MB), unless the
    /// blur is so wide that its halo alone needs more.
    static let bandFloatBudget = 1 << 24

    /// Blurs `bitmap` (non-empty) with the three `boxes` along each axis.
    ///
    /// The image is done in bands of rows, so the float copy never holds more than about
    /// `bandFloatBudget` floats (for a big image): each band is blurred with a halo of
    /// `boxes.count × (l + 1)` rows either side, which the vertical passes corrupt from the
    /// band's cut edges inwards by at most `l + 1` rows a pass, and which is then dropped.
    static func boxBlur(_ bitmap: Bitmap, boxes: [ExtendedBox]) -> Bitmap {
        let width = bitmap.width, height = bitmap.height
        let pad = boxes.map(\.l).max()! + 1
        let halo = boxes.count * pad
        let bandRows = max(4 * halo, bandFloatBudget / (width * 4) - 2 * halo, 1)
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        pixels.withUnsafeMutableBufferPointer { target in
            bitmap.pixels.withUnsafeBufferPointer { source in
                var first = 0
                while first < height {
                    let last = min(height, first + bandRows)
                    let top = max(0, first - halo), bottom = min(height, last + halo)
                    blurBand(source.baseAddress!, into: target.baseAddress!, width: width, rows: top..<bottom,
                             keeping: first..<last, pad: pad, boxes: boxes)
                    first = last
                }
            }
        }
        return Bitmap(width: width, height: height, pixels: pixels)
    }

    /// Blurs rows `rows` of `source` and writes the rows `kept` (inside them) of the result to
    /// `target`; both are RGBA8 images `width` pixels wide.
    private static func blurBand(_ source: UnsafePointer<UInt8>, into target: UnsafeMutablePointer<UInt8>, width: Int,
                                 rows: Range<Int>, keeping kept: Range<Int>, pad: Int, boxes: [ExtendedBox]) {
        let height = rows.count, rowFloats = width * 4
        // Premultiplied, after the horizontal passes: 4 floats a pixel, row after row.
        let middle = UnsafeMutableBufferPointer<Float>.allocate(capacity: height * rowFloats)
        defer { middle.deallocate() }

        // Horizontal: each row through the three passes in two small padded buffers.
        do {
            let rowLength = width + 2 * pad
            let a = UnsafeMutableBufferPointer<SIMD4<Float>>.allocate(capacity: rowLength)
            let b = UnsafeMutableBufferPointer<SIMD4<Float>>.allocate(capacity: rowLength)
            defer { a.deallocate(); b.deallocate() }
            for y in 0..<height {
                let row = source + (rows.lowerBound + y) * rowFloats
                for x in 0..<width {
                    let p = row + 4 * x
                    let alpha = Float(p[3])
                    a[pad + x] = SIMD4(Float(p[0]) * alpha, Float(p[1]) * alpha, Float(p[2]) * alpha, alpha)
                }
                var input = a, output = b
                for box in boxes {
                    extendEdges(input, count: width, pad: pad)
                    horizontalPass(input, output, count: width, pad: pad, box: box)
                    swap(&input, &output)
                }
                UnsafeMutableRawPointer(middle.baseAddress! + y * rowFloats).assumingMemoryBound(to: SIMD4<Float>.self)
                    .update(from: input.baseAddress! + pad, count: width)
            }
        }

        // Vertical: strips of columns, each through the three passes in two padded buffers
        // small enough to stay in cache, then back to straight 8-bit colour.
        let stripFloats = min(64, rowFloats)
        let paddedRows = height + 2 * pad
        let a = UnsafeMutableBufferPointer<Float>.allocate(capacity: paddedRows * stripFloats)
        let b = UnsafeMutableBufferPointer<Float>.allocate(capacity: paddedRows * stripFloats)
        let sums = UnsafeMutableBufferPointer<Float>.allocate(capacity: stripFloats)
        defer { a.deallocate(); b.deallocate(); sums.deallocate() }
        var start = 0
        while start < rowFloats {
            let count = min(stripFloats, rowFloats - start)
            for y in 0..<height {
                (a.baseAddress! + (pad + y) * count).update(from: middle.baseAddress! + y * rowFloats + start, count: count)
            }
            var input = a, output = b
            for box in boxes {
                // Clamping is right at the image's edges; at a band's cut edges it is wrong,
                // but only within the halo.
                extendEdges(input, rows: height, count: count, pad: pad)
                verticalPass(input, output, sums, rows: height, count: count, pad: pad, box: box)
                swap(&input, &output)
            }
            for y in kept {
                unpremultiply(input.baseAddress! + (pad + y - rows.lowerBound) * count, into: target + y * rowFloats + start,
                              pixels: count / 4)
            }
            start += count
        }
    }

    /// Fills the `pad` slots before and after `count` values with copies of the end values.
    @inline(__always)
    private static func extendEdges(_ row: UnsafeMutableBufferPointer<SIMD4<Float>>, count: Int, pad: Int) {
        let first = row[pad], last = row[pad + count - 1]
        for i in 0..<pad {
            row[i] = first
            row[pad + count + i] = last
        }
    }

    /// Fills the `pad` rows before and after `rows` rows of `count` floats with copies of the
    /// first and last row.
    @inline(__always)
    private static func extendEdges(_ strip: UnsafeMutableBufferPointer<Float>, rows: Int, count: Int, pad: Int) {
        let base = strip.baseAddress!
        for i in 0..<pad {
            (base + i * count).update(from: base + pad * count, count: count)
            (base + (pad + rows + i) * count).update(from: base + (pad + rows - 1) * count, count: count)
        }
    }

    /// One extended box along a padded row: `output[pad + x]` for `x` in `0..<count`.
    @inline(__always)
    private static func horizontalPass(_ input: UnsafeMutableBufferPointer<SIMD4<Float>>,
                                       _ output: UnsafeMutableBufferPointer<SIMD4<Float>>,
                                       count: Int, pad: Int, box: ExtendedBox) {
        let src = input.baseAddress! + pad, dst = output.baseAddress! + pad
        let l = box.l, alpha = SIMD4<Float>(repeating: box.alpha), scale = SIMD4<Float>(repeating: box.scale)
        var sum = SIMD4<Float>()
        for k in -l...l { sum += src[k] }
        for x in 0..<count {
            dst[x] = (sum + alpha * (src[x - l - 1] + src[x + l + 1])) * scale
            // The difference first, so a flat run leaves the sum exactly as it was.
            sum += src[x + l + 1] - src[x - l]
        }
    }

    /// One extended box down a padded strip of `rows` rows of `count` floats, with `sums`
    /// (`count` floats) as the running sums.
    @inline(__always)
    private static func verticalPass(_ input: UnsafeMutableBufferPointer<Float>, _ output: UnsafeMutableBufferPointer<Float>,
                                     _ sums: UnsafeMutableBufferPointer<Float>, rows: Int, count: Int, pad: Int, box: ExtendedBox) {
        let src = input.baseAddress! + pad * count, dst = output.baseAddress! + pad * count
        let s = sums.baseAddress!
        let l = box.l, alpha = box.alpha, scale = box.scale
        s.update(repeating: 0, count: count)
        for k in -l...l {
            let row = src + k * count
            for j in 0..<count { s[j] += row[j] }
        }
        for y in 0..<rows {
            let before = src + (y - l - 1) * count, first = src + (y - l) * count
            let after = src + (y + l + 1) * count, out = dst + y * count
            for j in 0..<count {
                out[j] = (s[j] + alpha * (before[j] + after[j])) * scale
                s[j] += after[j] - first[j]
            }
        }
    }

    /// Premultiplied floats (`colour × alpha`, alpha) to straight, rounded RGBA8.
    @inline(__always)
    private static func unpremultiply(_ source: UnsafePointer<Float>, into target: UnsafeMutablePointer<UInt8>, pixels: Int) {
        for i in 0..<pixels {
            let p = source + 4 * i, q = target + 4 * i
            let alpha = min(max(p[3], 0), 255)
            // Fully transparent once rounded: no colour (and none made up from rounding noise).
            guard alpha >= 0.5 else {
                q[0] = 0; q[1] = 0; q[2] = 0; q[3] = 0
                continue
            }
            q[3] = UInt8(alpha + 0.5)
            let inverse = 1 / alpha
            q[0] = UInt8(min(max(p[0] * inverse, 0), 255) + 0.5)
            q[1] = UInt8(min(max(p[1] * inverse, 0), 255) + 0.5)
            q[2] = UInt8(min(max(p[2] * inverse, 0), 255) + 0.5)
        }
    }
}
