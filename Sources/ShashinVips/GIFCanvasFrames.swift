import ShashinCore

/// A composed GIF canvas written back as GIF frames that draw it, pixel for pixel, on a cleared
/// canvas of its size: how a GIF reader saves its canvas (`VipsAnimationFrames`). A GIF spliced
/// from these frames and the file's frames after the canvas (`GIFSplice`) composes those frames
/// as the file itself does, so libvips goes on from the saved canvas.
///
/// The canvas is libvips' composed frame, RGBA8: every pixel opaque (a colour of some palette)
/// or transparent black (cleared). The first frame covers the whole canvas, as the first frame
/// of a GIF must to set the canvas' size; it draws the rows whose colours fit one 255-colour
/// palette, transparent elsewhere. Each later frame draws the next band of rows whose colours
/// fit a palette (or part of a row, for a row of more than 255 colours). Every frame is left on
/// the canvas (disposal 1); index 255 is transparent. LZW compresses the frames, so a canvas
/// of large flat areas takes a few kilobytes.
enum GIFCanvasFrames {
    /// The frames' bytes (extensions, descriptors, colour tables and image data) and how many
    /// frames they are.
    struct Encoded {
        var bytes: [UInt8]
        var frameCount: Int
    }

    /// At most this many frames for one canvas; a canvas that needs more (thousands of colours
    /// in most rows) is not saved.
    static let maxFrames = 32
    private static let transparent: UInt8 = 255

    /// The frames that draw `canvas`; `nil` when a pixel is neither opaque nor transparent black,
    /// or the canvas needs more than `maxFrames` palettes.
    static func encode(_ canvas: Bitmap) -> Encoded? {
        let width = canvas.width, height = canvas.height
        guard width > 0, height > 0, width <= 0xFFFF, height <= 0xFFFF, canvas.pixels.count == width * height * 4 else { return nil }
        return canvas.pixels.withUnsafeBytes { raw -> Encoded? in
            let pixels = raw.bindMemory(to: UInt32.self)
            guard let pieces = pieces(pixels, width: width, height: height) else { return nil }
            var encoded = Encoded(bytes: [], frameCount: pieces.count)
            var indices: [UInt8] = []
            for (number, piece) in pieces.enumerated() {
                // The first frame spans the canvas; the pixels outside its piece are transparent.
                let rect = number == 0 ? (x: 0, y: 0, width: width, height: height) : piece.rect
                indices.removeAll(keepingCapacity: true)
                indices.reserveCapacity(rect.width * rect.height)
                var hasTransparent = false
                // Runs of one colour are the rule on a GIF's canvas: the last lookup is kept.
                var last: (pixel: UInt32, index: UInt8)?
                for y in rect.y..<rect.y + rect.height {
                    let inside = y >= piece.rect.y && y < piece.rect.y + piece.rect.height
                    for x in rect.x..<rect.x + rect.width {
                        guard inside, x >= piece.rect.x, x < piece.rect.x + piece.rect.width else {
                            indices.append(transparent)
                            hasTransparent = true
                            continue
                        }
                        let pixel = pixels[y * width + x]
                        if let last, last.pixel == pixel {
                            indices.append(last.index)
                            continue
                        }
                        let index = colourKey(pixel).map { piece.palette.index(of: $0) } ?? transparent
                        hasTransparent = hasTransparent || index == transparent
                        last = (pixel, index)
                        indices.append(index)
                    }
                }
                append(frame: rect, palette: piece.palette, hasTransparent: hasTransparent, indices: indices, to: &encoded.bytes)
            }
            return encoded
        }
    }

    /// A rectangle of the canvas whose opaque colours fit `palette`.
    private struct Piece {
        var rect: (x: Int, y: Int, width: Int, height: Int)
        var palette: Palette
    }

    /// The canvas cut into bands of rows (parts of rows, for a row of more than 255 colours),
    /// each of at most 255 opaque colours; `nil` when a pixel cannot be written or there are
    /// more than `maxFrames` pieces.
    private static func pieces(_ pixels: UnsafeBufferPointer<UInt32>, width: Int, height: Int) -> [Piece]? {
        var pieces: [Piece] = []
        var band = Palette(), bandStart = 0
        func closeBand(before row: Int) {
            if row > bandStart { pieces.append(Piece(rect: (0, bandStart, width, row - bandStart), palette: band)) }
            band = Palette()
            bandStart = row
        }
        for y in 0..<height {
            let row = UnsafeBufferPointer(rebasing: pixels[y * width..<(y + 1) * width])
            for pixel in row where !isWritable(pixel) { return nil }
            var widened = band
            if widened.add(row) { band = widened; continue }
            closeBand(before: y)
            var whole = Palette()
            if whole.add(row) {
                band = whole
                continue
            }
            // More than 255 colours in one row: parts of it, each of at most 255.
            var x = 0
            while x < width {
                var part = Palette(), end = x
                while end < width, part.add(UnsafeBufferPointer(rebasing: row[end..<end + 1])) { end += 1 }
                pieces.append(Piece(rect: (x, y, end - x, 1), palette: part))
                x = end
            }
            bandStart = y + 1
            guard pieces.count <= maxFrames else { return nil }
        }
        closeBand(before: height)
        return pieces.count <= maxFrames ? pieces : nil
    }

    /// Whether a pixel can be written: opaque, or transparent black.
    private static func isWritable(_ pixel: UInt32) -> Bool {
        let alpha = UInt8(truncatingIfNeeded: UInt32(littleEndian: pixel) >> 24)
        return alpha == 255 || UInt32(littleEndian: pixel) == 0
    }

    /// An opaque pixel's colour as `0xBBGGRR`; `nil` for a transparent one.
    private static func colourKey(_ pixel: UInt32) -> UInt32? {
        let value = UInt32(littleEndian: pixel)
        return value >> 24 == 255 ? value & 0xFF_FFFF : nil
    }

    /// Appends one frame: its graphic control extension (left on the canvas; index 255
    /// transparent when it has transparent pixels), image descriptor, 256-colour local colour
    /// table and image data.
    private static func append(frame rect: (x: Int, y: Int, width: Int, height: Int), palette: Palette, hasTransparent: Bool,
                               indices: [UInt8], to bytes: inout [UInt8]) {
        let packed: UInt8 = 1 << 2 | (hasTransparent ? 1 : 0)
        bytes += [0x21, 0xF9, 0x04, packed, 0, 0, hasTransparent ? transparent : 0, 0]
        bytes.append(0x2C)
        for value in [rect.x, rect.y, rect.width, rect.height] { bytes += [UInt8(value & 0xFF), UInt8(value >> 8)] }
        bytes.append(0x87)
        for index in 0..<256 {
            let colour = index < palette.colours.count ? palette.colours[index] : 0
            bytes += [UInt8(colour & 0xFF), UInt8(colour >> 8 & 0xFF), UInt8(colour >> 16 & 0xFF)]
        }
        indices.withUnsafeBufferPointer { GIFLZWEncoder.encode($0, into: &bytes) }
    }

    /// Up to 255 opaque colours (`0xBBGGRR`), each with its index, in a small open-addressed table.
    private struct Palette {
        private(set) var colours: [UInt32] = []
        /// 512 slots of `colour + 1` (0: empty) and their indices.
        private var slots = [UInt32](repeating: 0, count: 512)
        private var slotIndices = [UInt8](repeating: 0, count: 512)

        /// Adds the opaque colours of `row`; `false` (the palette then partly changed: discard it)
        /// when they would pass 255.
        mutating func add(_ row: UnsafeBufferPointer<UInt32>) -> Bool {
            var last: UInt32?
            for pixel in row {
                guard let key = GIFCanvasFrames.colourKey(pixel), key != last else { continue }
                last = key
                var slot = Self.slot(key)
                while slots[slot] != 0, slots[slot] != key + 1 { slot = (slot + 1) & 511 }
                guard slots[slot] == 0 else { continue }
                guard colours.count < 255 else { return false }
                slots[slot] = key + 1
                slotIndices[slot] = UInt8(colours.count)
                colours.append(key)
            }
            return true
        }

        /// The index of `key`, which `add` added.
        func index(of key: UInt32) -> UInt8 {
            var slot = Self.slot(key)
            while slots[slot] != key + 1 { slot = (slot + 1) & 511 }
            return slotIndices[slot]
        }

        private static func slot(_ key: UInt32) -> Int { Int((key &* 2_654_435_761) >> 23) & 511 }
    }
}
