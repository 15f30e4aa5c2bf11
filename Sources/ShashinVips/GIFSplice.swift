import ShashinCore

/// A GIF for a reader going on after a saved canvas: the file's header, logical screen
/// descriptor and global colour table; the frames that draw the canvas (`GIFCanvasFrames`);
/// then the file's frames from `origin` to its last complete one, and the trailer. libvips loads
/// it as it loads the file, and composes the file's frames on the drawn canvas exactly as it
/// would on the canvas it composed itself: libnsgif's canvas is all the state a frame is drawn on
/// (the canvas drawn holds the file's canvas after the frame before `origin` was disposed of),
/// its background colour comes from the same header, and page `canvasPages + k - origin` is the
/// file's frame `k`.
///
/// Owns the spliced bytes at an address that stays put until it goes: libvips reads them lazily.
final class GIFSplice {
    let bytes: UnsafeRawBufferPointer
    /// Pages of the canvas before the file's frames.
    let canvasPages: Int

    init(file: UnsafeRawBufferPointer, layout: GIFFrameScan.Result, canvas: GIFCanvasFrames.Encoded, origin: Int, frameLimit: Int) {
        let header = UnsafeRawBufferPointer(rebasing: file[0..<layout.headerEnd])
        let tail = origin < frameLimit
            ? UnsafeRawBufferPointer(rebasing: file[layout.start(of: origin)..<layout.frames[frameLimit - 1].end])
            : UnsafeRawBufferPointer(start: nil, count: 0)
        let count = header.count + canvas.bytes.count + tail.count + 1
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
        var offset = 0
        func append(_ part: UnsafeRawBufferPointer) {
            guard part.count > 0 else { return }
            UnsafeMutableRawBufferPointer(rebasing: memory[offset..<offset + part.count]).copyMemory(from: part)
            offset += part.count
        }
        append(header)
        canvas.bytes.withUnsafeBytes { append($0) }
        append(tail)
        memory[count - 1] = 0x3B
        bytes = UnsafeRawBufferPointer(memory)
        canvasPages = canvas.frameCount
    }

    deinit {
        bytes.baseAddress.map { UnsafeMutableRawPointer(mutating: $0).deallocate() }
    }

    /// The canvas the frame after `frame` is drawn on, from `shown` (the canvas as libvips showed
    /// `frame`), as libnsgif disposes of `frame`: as shown (disposal 0, 1 and 5–7), or its region
    /// cleared (2) to transparent black when the frame has a transparent index, else to the
    /// background colour. `nil` for a frame that restores the canvas before it (3, and 4 as
    /// libnsgif reads it): that canvas is not at hand.
    static func disposed(_ shown: Bitmap, of frame: GIFFrameScan.Frame, file: UnsafeRawBufferPointer) -> Bitmap? {
        switch frame.disposal {
        case 3, 4:
            return nil
        case 2:
            guard frame.x < shown.width, frame.y < shown.height else { return shown }
            let fill: (UInt8, UInt8, UInt8, UInt8) = frame.hasTransparency ? (0, 0, 0, 0) : background(file)
            var cleared = shown.pixels
            let right = min(shown.width, frame.x + frame.width), bottom = min(shown.height, frame.y + frame.height)
            cleared.withUnsafeMutableBufferPointer { pixels in
                for y in frame.y..<bottom {
                    for x in frame.x..<right {
                        let at = (y * shown.width + x) * 4
                        (pixels[at], pixels[at + 1], pixels[at + 2], pixels[at + 3]) = fill
                    }
                }
            }
            return Bitmap(width: shown.width, height: shown.height, pixels: cleared)
        default:
            return shown
        }
    }

    /// libnsgif's background colour: the global colour table's entry at the background index
    /// when the table has it, else its first entry; black without a global colour table.
    private static func background(_ file: UnsafeRawBufferPointer) -> (UInt8, UInt8, UInt8, UInt8) {
        guard file.count >= 13, file[10] & 0x80 != 0 else { return (0, 0, 0, 255) }
        let entries = 2 << Int(file[10] & 0x07)
        let index = Int(file[11]) < entries ? Int(file[11]) : 0
        let at = 13 + index * 3
        guard at + 3 <= file.count else { return (0, 0, 0, 255) }
        return (file[at], file[at + 1], file[at + 2], 255)
    }
}
