import Foundation
import ShashinCore

extension VipsProcessing {
    /// A line drawn along the inside of a shape's edge.
    package struct Border: Sendable, Hashable {
        /// Width in pixels.
        package var width: Double
        /// The colour, straight (not premultiplied) sRGB with alpha.
        package var red, green, blue, alpha: UInt8

        package init(width: Double, red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) {
            self.width = width
            self.red = red
            self.green = green
            self.blue = blue
            self.alpha = alpha
        }
    }

    /// Makes everything outside a rounded rectangle of corner `radius` pixels transparent, with
    /// antialiased edges, and paints `border` (if any) over the image along the inside of that
    /// edge. The radius is capped at half the shorter side (a larger one gives a capsule).
    ///
    /// Only pixels near the edges are touched: the four corner squares, and with a border the
    /// bands along each side. A pixel's coverage is its centre's signed distance to the shape,
    /// turned into a one-pixel ramp.
    package static func roundCorners(_ bitmap: Bitmap, radius: Double, border: Border? = nil) throws(VipsProcessingError) -> Bitmap {
        guard radius.isFinite, radius >= 0 else {
            throw VipsProcessingError("The corner radius must be a finite number of pixels ≥ 0, not \(radius)")
        }
        if let border, !(border.width.isFinite && border.width >= 0) {
            throw VipsProcessingError("The border width must be a finite number of pixels ≥ 0, not \(border.width)")
        }
        let width = bitmap.width, height = bitmap.height
        guard width > 0, height > 0 else { return bitmap }
        let halfShorter = Double(min(width, height)) / 2
        let outer = RoundedBox(width: width, height: height, inset: 0, radius: min(radius, halfShorter))
        let border = border.flatMap { $0.width > 0 ? $0 : nil }
        let borderWidth = min(border?.width ?? 0, halfShorter)
        guard outer.radius > 0 || borderWidth > 0 else { return bitmap }
        let inner = RoundedBox(width: width, height: height, inset: borderWidth, radius: max(outer.radius - borderWidth, 0))

        // Rows and columns this close to an edge may be partly covered (one pixel of ramp).
        let cornerBand = Int(max(outer.radius, borderWidth).rounded(.up)) + 1
        let borderBand = border == nil ? 0 : Int(borderWidth.rounded(.up)) + 1
        var pixels = bitmap.pixels
        pixels.withUnsafeMutableBufferPointer { pixels in
            func shade(_ x: Int, _ y: Int) {
                let px = Double(x) + 0.5, py = Double(y) + 0.5
                let covered = outer.coverage(px, py)
                let i = (y * width + x) * 4
                guard let border else {
                    if covered < 1 { pixels.scaleAlpha(at: i, by: covered) }
                    return
                }
                let ring = max(0, covered - inner.coverage(px, py))
                if covered < 1 || ring > 0 { pixels.paint(border, coverage: ring, over: i, clippedTo: covered) }
            }
            func shade(row y: Int, columns: Range<Int>) {
                for x in columns { shade(x, y) }
            }
            for y in 0..<height {
                let band: Int
                if y < borderBand || y >= height - borderBand {
                    band = width
                } else if y < cornerBand || y >= height - cornerBand {
                    band = cornerBand
                } else {
                    band = borderBand
                }
                let left = min(band, width)
                shade(row: y, columns: 0..<left)
                shade(row: y, columns: max(width - band, left)..<width)
            }
        }
        return Bitmap(width: width, height: height, pixels: pixels)
    }

    /// The largest centred circle: the image cropped to its centred square, with corners of half
    /// its side.
    package static func circle(_ bitmap: Bitmap, border: Border? = nil) throws(VipsProcessingError) -> Bitmap {
        guard bitmap.width > 0, bitmap.height > 0 else { return bitmap }
        let square = copyPixels(of: bitmap, in: centredSquare(width: bitmap.width, height: bitmap.height))
        return try roundCorners(square, radius: Double(square.width) / 2, border: border)
    }
}

/// A rectangle with rounded corners, centred in a `width` × `height` image and `inset` pixels in
/// from each side.
private struct RoundedBox {
    let centreX, centreY, halfWidth, halfHeight, radius: Double
    let isEmpty: Bool

    init(width: Int, height: Int, inset: Double, radius: Double) {
        centreX = Double(width) / 2
        centreY = Double(height) / 2
        halfWidth = centreX - inset
        halfHeight = centreY - inset
        self.radius = min(radius, max(0, min(halfWidth, halfHeight)))
        isEmpty = halfWidth <= 0 || halfHeight <= 0
    }

    /// How much of the pixel centred at `(x, y)` the shape covers, 0...1: 1 where its centre is
    /// half a pixel or more inside the edge, 0 where it is half a pixel or more outside.
    func coverage(_ x: Double, _ y: Double) -> Double {
        guard !isEmpty else { return 0 }
        // Signed distance to a rounded box: negative inside.
        let qx = abs(x - centreX) - (halfWidth - radius)
        let qy = abs(y - centreY) - (halfHeight - radius)
        let outside = (max(qx, 0) * max(qx, 0) + max(qy, 0) * max(qy, 0)).squareRoot()
        let distance = outside + min(max(qx, qy), 0) - radius
        return min(max(0.5 - distance, 0), 1)
    }
}

private extension UnsafeMutableBufferPointer<UInt8> {
    /// Multiplies the alpha of the pixel at byte `i` by `coverage`; a pixel left fully
    /// transparent is zeroed, so it carries no stray colour.
    func scaleAlpha(at i: Int, by coverage: Double) {
        let alpha = (Double(self[i + 3]) * coverage).rounded()
        if alpha <= 0 {
            self[i] = 0; self[i + 1] = 0; self[i + 2] = 0; self[i + 3] = 0
        } else {
            self[i + 3] = UInt8(alpha)
        }
    }

    /// Composites `border` with `coverage` over the pixel at byte `i`, after clipping the pixel
    /// itself to `clip` (source-over, in premultiplied terms, written back straight).
    func paint(_ border: VipsProcessing.Border, coverage: Double, over i: Int, clippedTo clip: Double) {
        let borderAlpha = Double(border.alpha) / 255 * coverage
        let imageAlpha = Double(self[i + 3]) / 255 * clip
        let below = imageAlpha * (1 - borderAlpha)
        let alpha = borderAlpha + below
        guard alpha > 0 else {
            self[i] = 0; self[i + 1] = 0; self[i + 2] = 0; self[i + 3] = 0
            return
        }
        func channel(_ top: UInt8, _ bottom: UInt8) -> UInt8 {
            UInt8(Swift.min(255, ((Double(top) * borderAlpha + Double(bottom) * below) / alpha).rounded()))
        }
        self[i] = channel(border.red, self[i])
        self[i + 1] = channel(border.green, self[i + 1])
        self[i + 2] = channel(border.blue, self[i + 2])
        self[i + 3] = UInt8(Swift.min(255, (alpha * 255).rounded()))
    }
}
