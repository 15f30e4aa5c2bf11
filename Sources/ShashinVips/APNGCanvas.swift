import ShashinCore

/// The canvas an APNG's frames are drawn on, in 8-bit sRGB RGBA, composed as the APNG
/// specification says: it starts transparent black; each frame's region is saved first when its
/// disposal is `previous`, then drawn (`source` replaces the pixels, `over` composes by alpha),
/// the whole canvas is shown, and then the region is disposed of (left, cleared, or restored).
struct APNGCanvas {
    let width: Int, height: Int
    private(set) var pixels: [UInt8]

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 4)
    }

    /// Draws `frame` (RGBA8, the region's size) at the region of `layout`, hands the composed
    /// canvas to `show`, then disposes of the region as `layout` says.
    mutating func draw<T>(_ frame: Bitmap, as layout: APNGStructure.Frame, show: (Bitmap) throws -> T) rethrows -> T {
        precondition(frame.width == layout.width && frame.height == layout.height && layout.x + layout.width <= width
                     && layout.y + layout.height <= height)
        let saved = layout.disposal == .previous ? region(layout) : nil
        let rowBytes = layout.width * 4
        frame.pixels.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { canvas in
                for row in 0..<layout.height {
                    let from = row * rowBytes, to = ((layout.y + row) * width + layout.x) * 4
                    if layout.blending == .source {
                        for i in 0..<rowBytes { canvas[to + i] = source[from + i] }
                    } else {
                        for pixel in stride(from: 0, to: rowBytes, by: 4) { Self.over(source, from + pixel, onto: canvas, to + pixel) }
                    }
                }
            }
        }
        let shown = try show(Bitmap(width: width, height: height, pixels: pixels))
        switch layout.disposal {
        case .none: break
        case .background: fill(layout, with: nil)
        case .previous: fill(layout, with: saved)
        }
        return shown
    }

    /// Composes one non-premultiplied pixel over another (Porter–Duff over, rounded to 8 bits):
    /// an opaque source replaces, a transparent one leaves the canvas as it was.
    private static func over(_ source: UnsafeBufferPointer<UInt8>, _ s: Int, onto canvas: UnsafeMutableBufferPointer<UInt8>, _ d: Int) {
        let sa = Int(source[s + 3])
        if sa == 255 {
            for c in 0..<4 { canvas[d + c] = source[s + c] }
            return
        }
        guard sa > 0 else { return }
        let da = Int(canvas[d + 3])
        // Alpha and colour weights in units of 1/(255·255).
        let sourceWeight = sa * 255, canvasWeight = da * (255 - sa)
        let outWeight = sourceWeight + canvasWeight
        for c in 0..<3 {
            let value = Int(source[s + c]) * sourceWeight + Int(canvas[d + c]) * canvasWeight
            canvas[d + c] = UInt8((value + outWeight / 2) / outWeight)
        }
        canvas[d + 3] = UInt8((outWeight + 127) / 255)
    }

    /// The canvas pixels under `layout`'s region, row after row.
    private func region(_ layout: APNGStructure.Frame) -> [UInt8] {
        var saved: [UInt8] = []
        saved.reserveCapacity(layout.width * layout.height * 4)
        for row in 0..<layout.height {
            let start = ((layout.y + row) * width + layout.x) * 4
            saved += pixels[start..<start + layout.width * 4]
        }
        return saved
    }

    /// Writes `saved` (from `region`) back under `layout`'s region; transparent black when `nil`.
    private mutating func fill(_ layout: APNGStructure.Frame, with saved: [UInt8]?) {
        let rowBytes = layout.width * 4
        for row in 0..<layout.height {
            let start = ((layout.y + row) * width + layout.x) * 4
            if let saved {
                pixels.replaceSubrange(start..<start + rowBytes, with: saved[row * rowBytes..<(row + 1) * rowBytes])
            } else {
                pixels.replaceSubrange(start..<start + rowBytes, with: repeatElement(0, count: rowBytes))
            }
        }
    }
}
