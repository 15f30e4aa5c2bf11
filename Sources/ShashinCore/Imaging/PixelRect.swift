/// A rectangle on the pixel grid: whole pixels, origin at the top-left.
package struct PixelRect: Sendable, Hashable, CustomStringConvertible {
    package var x: Int
    package var y: Int
    package var width: Int
    package var height: Int

    package init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The whole of a `width` × `height` image.
    package init(width: Int, height: Int) {
        self.init(x: 0, y: 0, width: width, height: height)
    }

    /// Whether the rectangle holds no pixel.
    package var isEmpty: Bool { width <= 0 || height <= 0 }

    /// The part of this rectangle inside a `width` × `height` image; empty when none is.
    /// Saturating arithmetic: any `Int`s, however large or negative, give an answer.
    package func clamped(toWidth imageWidth: Int, height imageHeight: Int) -> PixelRect {
        let left = min(max(x, 0), imageWidth), top = min(max(y, 0), imageHeight)
        let right = min(max(x.addingSaturating(width), 0), imageWidth)
        let bottom = min(max(y.addingSaturating(height), 0), imageHeight)
        return PixelRect(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
    }

    /// `x=…,y=…,w=…,h=…`, for identifiers and messages.
    package var description: String { "x=\(x),y=\(y),w=\(width),h=\(height)" }
}

private extension Int {
    func addingSaturating(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }
}
