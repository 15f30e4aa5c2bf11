import Shashin

/// Paints the deterministic picture behind every generated image: a four-corner gradient, a few
/// translucent circles and rectangles, and a little per-pixel noise.
///
/// The noise is what makes encoded sizes realistic (flat gradients compress to almost nothing);
/// the shapes give decoders and resizers edges to get right. Shape positions are relative to the
/// image size, so `7-640x480` and `7-4000x3000` show the same picture at different resolutions.
struct PatternPainter {
    let width: Int
    let height: Int
    let seed: UInt64
    /// Noise is uniform in `-noiseAmplitude..<noiseAmplitude` per channel: a power of two, 1...16.
    let noiseAmplitude: Int32

    private struct Colour {
        var r: Int32, g: Int32, b: Int32
    }

    private struct Shape {
        enum Kind { case circle, rectangle }
        var kind: Kind
        var centreX: Int, centreY: Int
        var halfWidth: Int, halfHeight: Int   // a circle's radius is `halfWidth`
        var colour: Colour
        var alpha: Int32                      // out of 256
    }

    func paint() -> Bitmap {
        var random = SeededRandom(seed: seed)
        // Channels stay in 24...231 and noise within ±16, so no pixel ever needs clamping.
        func colour() -> Colour {
            Colour(r: Int32(random.int(in: 24...231)), g: Int32(random.int(in: 24...231)), b: Int32(random.int(in: 24...231)))
        }
        let corners = (topLeft: colour(), topRight: colour(), bottomLeft: colour(), bottomRight: colour())
        let shortSide = min(width, height)
        var shapes: [Shape] = []
        for _ in 0..<random.int(in: 3...7) {
            let isCircle = random.unit() < 0.6
            let halfWidth = max(1, Int(Double(shortSide) * (0.05 + 0.2 * random.unit())))
            shapes.append(Shape(
                kind: isCircle ? .circle : .rectangle,
                centreX: Int(Double(width) * random.unit()),
                centreY: Int(Double(height) * random.unit()),
                halfWidth: halfWidth,
                halfHeight: isCircle ? halfWidth : max(1, Int(Double(shortSide) * (0.05 + 0.2 * random.unit()))),
                colour: colour(),
                alpha: Int32(random.int(in: 150...230))
            ))
        }
        let noiseSeed = UInt32(truncatingIfNeeded: random.next())

        let count = width * height * 4
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let base = buffer.baseAddress!
            paintGradient(into: base, corners: corners, noiseSeed: noiseSeed)
            for shape in shapes { blend(shape, into: base) }
            initialized = count
        }
        return Bitmap(width: width, height: height, pixels: pixels)
    }

    private func paintGradient(into base: UnsafeMutablePointer<UInt8>,
                               corners: (topLeft: Colour, topRight: Colour, bottomLeft: Colour, bottomRight: Colour),
                               noiseSeed: UInt32) {
        let amplitude = noiseAmplitude
        let mask = UInt32(2 * amplitude - 1)
        let rowSpan = Int32(max(1, height - 1))
        let columnSpan = Int32(max(1, width - 1))
        for y in 0..<height {
            // 16.16 fixed point across the row (255 << 16 fits in Int32): start at the left edge's
            // colour, step towards the right edge's.
            func edge(_ top: Int32, _ bottom: Int32) -> Int32 {
                top << 16 + Int32(Int64(bottom - top) << 16 * Int64(y) / Int64(rowSpan))
            }
            var r = edge(corners.topLeft.r, corners.bottomLeft.r)
            var g = edge(corners.topLeft.g, corners.bottomLeft.g)
            var b = edge(corners.topLeft.b, corners.bottomLeft.b)
            let stepR = (edge(corners.topRight.r, corners.bottomRight.r) - r) / columnSpan
            let stepG = (edge(corners.topRight.g, corners.bottomRight.g) - g) / columnSpan
            let stepB = (edge(corners.topRight.b, corners.bottomRight.b) - b) / columnSpan
            let rowHash = UInt32(truncatingIfNeeded: y) &* 0x85EB_CA77 ^ noiseSeed
            // One aligned 32-bit store per pixel: R, G, B, A in memory order on little-endian machines.
            let row = UnsafeMutableRawPointer(base + y * width * 4)
            for x in 0..<width {
                var h = UInt32(truncatingIfNeeded: x) &* 0x9E37_79B1 ^ rowHash
                h ^= h >> 15
                h &*= 0x2C1B_3C6D
                h ^= h >> 13
                let red = UInt32(truncatingIfNeeded: (r >> 16) + Int32(h & mask) - amplitude)
                let green = UInt32(truncatingIfNeeded: (g >> 16) + Int32((h >> 8) & mask) - amplitude)
                let blue = UInt32(truncatingIfNeeded: (b >> 16) + Int32((h >> 16) & mask) - amplitude)
                let pixel = red | green << 8 | blue << 16 | 0xFF00_0000
                row.storeBytes(of: pixel.littleEndian, toByteOffset: x &* 4, as: UInt32.self)
                r &+= stepR
                g &+= stepG
                b &+= stepB
            }
        }
    }

    private func blend(_ shape: Shape, into base: UnsafeMutablePointer<UInt8>) {
        let top = max(0, shape.centreY - shape.halfHeight)
        let bottom = min(height - 1, shape.centreY + shape.halfHeight)
        guard top <= bottom else { return }
        let a = shape.alpha, keep = 256 - shape.alpha
        let r = shape.colour.r * a, g = shape.colour.g * a, b = shape.colour.b * a
        let radiusSquared = shape.halfWidth * shape.halfWidth
        for y in top...bottom {
            let half: Int
            switch shape.kind {
            case .rectangle:
                half = shape.halfWidth
            case .circle:
                let dy = y - shape.centreY
                half = Int(Double(radiusSquared - dy * dy).squareRoot())
            }
            let left = max(0, shape.centreX - half)
            let right = min(width - 1, shape.centreX + half)
            guard left <= right else { continue }
            var p = base + (y * width + left) * 4
            for _ in left...right {
                p[0] = UInt8(truncatingIfNeeded: (Int32(p[0]) * keep + r) >> 8)
                p[1] = UInt8(truncatingIfNeeded: (Int32(p[1]) * keep + g) >> 8)
                p[2] = UInt8(truncatingIfNeeded: (Int32(p[2]) * keep + b) >> 8)
                p += 4
            }
        }
    }
}
