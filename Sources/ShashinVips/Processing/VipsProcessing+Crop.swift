import ShashinCore

extension VipsProcessing {
    /// The pixels of `rect` as a new bitmap (rows copied, nothing resampled); `bitmap` itself
    /// when `rect` is the whole image. Throws when `rect` is empty or not inside the image.
    package static func crop(_ bitmap: Bitmap, to rect: PixelRect) throws(VipsProcessingError) -> Bitmap {
        guard !rect.isEmpty, rect.clamped(toWidth: bitmap.width, height: bitmap.height) == rect else {
            throw VipsProcessingError("The rectangle \(rect) is not inside the \(bitmap.width)×\(bitmap.height) image")
        }
        return copyPixels(of: bitmap, in: rect)
    }

    /// The centred square whose side is the image's shorter side.
    package static func centredSquare(width: Int, height: Int) -> PixelRect {
        let side = min(width, height)
        return PixelRect(x: (width - side) / 2, y: (height - side) / 2, width: side, height: side)
    }

    /// `crop` for a rectangle already known to be non-empty and inside the image.
    static func copyPixels(of bitmap: Bitmap, in rect: PixelRect) -> Bitmap {
        if rect == PixelRect(width: bitmap.width, height: bitmap.height) { return bitmap }
        let rowBytes = rect.width * 4
        let count = rowBytes * rect.height
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { target, initialized in
            bitmap.pixels.withUnsafeBufferPointer { source in
                for row in 0..<rect.height {
                    let from = ((rect.y + row) * bitmap.width + rect.x) * 4
                    UnsafeMutableRawPointer(target.baseAddress! + row * rowBytes)
                        .copyMemory(from: source.baseAddress! + from, byteCount: rowBytes)
                }
            }
            initialized = count
        }
        return Bitmap(width: rect.width, height: rect.height, pixels: pixels)
    }
}
