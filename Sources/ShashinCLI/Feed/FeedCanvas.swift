import Shashin

/// An RGBA drawing surface for the demo's pictures: filled rectangles, bitmaps and a 3×5 pixel
/// font for row numbers and strategy names.
struct FeedCanvas {
    typealias Colour = (r: UInt8, g: UInt8, b: UInt8)

    let width: Int
    let height: Int
    private(set) var pixels: [UInt8]

    init(width: Int, height: Int, background: Colour) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 255, count: width * height * 4)
        fill(x: 0, y: 0, width: width, height: height, background)
    }

    var bitmap: Bitmap { Bitmap(width: width, height: height, pixels: pixels) }

    mutating func fill(x: Int, y: Int, width w: Int, height h: Int, _ colour: Colour) {
        let x0 = max(0, x), y0 = max(0, y), x1 = min(width, x + w), y1 = min(height, y + h)
        guard x0 < x1, y0 < y1 else { return }
        for row in y0..<y1 {
            var i = (row * width + x0) * 4
            for _ in x0..<x1 {
                pixels[i] = colour.r; pixels[i + 1] = colour.g; pixels[i + 2] = colour.b; pixels[i + 3] = 255
                i += 4
            }
        }
    }

    mutating func frame(x: Int, y: Int, width w: Int, height h: Int, thickness t: Int, _ colour: Colour) {
        fill(x: x, y: y, width: w, height: t, colour)
        fill(x: x, y: y + h - t, width: w, height: t, colour)
        fill(x: x, y: y, width: t, height: h, colour)
        fill(x: x + w - t, y: y, width: t, height: h, colour)
    }

    /// Copies `bitmap` with its top-left corner at `(x, y)`, clipped, alpha ignored.
    mutating func draw(_ bitmap: Bitmap, x: Int, y: Int) {
        for row in 0..<bitmap.height where (0..<height).contains(y + row) {
            for column in 0..<bitmap.width where (0..<width).contains(x + column) {
                let source = (row * bitmap.width + column) * 4, target = ((y + row) * width + x + column) * 4
                pixels[target] = bitmap.pixels[source]
                pixels[target + 1] = bitmap.pixels[source + 1]
                pixels[target + 2] = bitmap.pixels[source + 2]
                pixels[target + 3] = 255
            }
        }
    }

    /// Writes `text` (digits, a few capitals, space) at `(x, y)`, each font pixel `scale` pixels.
    mutating func text(_ text: String, x: Int, y: Int, scale: Int, _ colour: Colour) {
        var cursor = x
        for character in text.uppercased() {
            if let glyph = Self.glyphs[character] {
                for (row, line) in glyph.enumerated() {
                    for (column, bit) in line.enumerated() where bit == "#" {
                        fill(x: cursor + column * scale, y: y + row * scale, width: scale, height: scale, colour)
                    }
                }
            }
            cursor += 4 * scale
        }
    }

    private static let glyphs: [Character: [String]] = [
        "0": ["###", "#.#", "#.#", "#.#", "###"], "1": [".#.", "##.", ".#.", ".#.", "###"],
        "2": ["###", "..#", "###", "#..", "###"], "3": ["###", "..#", "###", "..#", "###"],
        "4": ["#.#", "#.#", "###", "..#", "..#"], "5": ["###", "#..", "###", "..#", "###"],
        "6": ["###", "#..", "###", "#.#", "###"], "7": ["###", "..#", ".#.", ".#.", ".#."],
        "8": ["###", "#.#", "###", "#.#", "###"], "9": ["###", "#.#", "###", "..#", "###"],
        "A": [".#.", "#.#", "###", "#.#", "#.#"], "E": ["###", "#..", "##.", "#..", "###"],
        "H": ["#.#", "#.#", "###", "#.#", "#.#"], "I": ["###", ".#.", ".#.", ".#.", "###"],
        "L": ["#..", "#..", "#..", "#..", "###"], "N": ["##.", "#.#", "#.#", "#.#", "#.#"],
        "P": ["##.", "#.#", "##.", "#..", "#.."], "S": [".##", "#..", ".#.", "..#", "##."],
        "V": ["#.#", "#.#", "#.#", "#.#", ".#."], "R": ["##.", "#.#", "##.", "#.#", "#.#"],
        "O": [".#.", "#.#", "#.#", "#.#", ".#."], "W": ["#.#", "#.#", "#.#", "###", "#.#"],
        "T": ["###", ".#.", ".#.", ".#.", ".#."], "M": ["#.#", "###", "#.#", "#.#", "#.#"],
        "-": ["...", "...", "###", "...", "..."], ".": ["...", "...", "...", "...", ".#."],
    ]
}
