/// Finds the frames of a GIF whose image data is complete in the bytes at hand, walking the
/// block structure (lengths only; no LZW is decoded), with what each frame's graphic control
/// extension and image descriptor say.
///
/// libvips' GIF loader decodes a frame cut short as if the missing pixels were there, without
/// an error: a cut animation must be loaded only up to its last complete frame, which this finds.
/// A reader going on after a saved canvas (`GIFSplice`) splices frames by the offsets found here.
enum GIFFrameScan {
    /// The complete frames, and whether the walk reached the trailer (0x3B): without it the data
    /// was cut or has a block this walk does not recognise, and frames after the complete ones
    /// may be missing.
    struct Result: Equatable {
        var isCut: Bool
        /// The offset after the header, logical screen descriptor and global colour table.
        var headerEnd = 0
        var frames: [Frame] = []

        var completeFrames: Int { frames.count }

        /// The offset of the first block belonging to frame `index` (its extensions, or its image
        /// descriptor): where the frame before it ends.
        func start(of index: Int) -> Int { index == 0 ? headerEnd : frames[index - 1].end }
    }

    /// One complete frame.
    struct Frame: Equatable {
        /// The offset after its image data (the zero-length block).
        var end: Int
        /// Its region, as its image descriptor gives it.
        var x: Int, y: Int, width: Int, height: Int
        /// Its graphic control extension's disposal method (0 without one).
        var disposal: UInt8
        /// Whether its graphic control extension names a transparent index.
        var hasTransparency: Bool
    }

    static func scan(_ bytes: UnsafeRawBufferPointer) -> Result {
        var result = Result(isCut: true)
        // Header (6) and logical screen descriptor (7), then the global colour table.
        guard bytes.count >= 13 else { return result }
        var offset = 13
        if bytes[10] & 0x80 != 0 { offset += 3 << (Int(bytes[10] & 0x07) + 1) }
        result.headerEnd = min(offset, bytes.count)
        var disposal: UInt8 = 0, hasTransparency = false
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x3B:
                result.isCut = false
                return result
            case 0x21:                                      // extension: label, then sub-blocks
                // A graphic control extension, read as libnsgif reads it: when six bytes follow
                // the introducer, whatever its block size says; a later one in the same frame
                // replaces the disposal, and any one names a transparent index.
                if offset + 7 <= bytes.count, bytes[offset + 1] == 0xF9 {
                    disposal = (bytes[offset + 3] & 0x1C) >> 2
                    hasTransparency = hasTransparency || bytes[offset + 3] & 0x01 != 0
                }
                guard let end = skipSubBlocks(bytes, from: offset + 2) else { return result }
                offset = end
            case 0x2C:                                      // image descriptor
                guard offset + 10 <= bytes.count else { return result }
                func word(_ at: Int) -> Int { Int(bytes[offset + at]) | Int(bytes[offset + at + 1]) << 8 }
                let (x, y, width, height) = (word(1), word(3), word(5), word(7))
                let packed = bytes[offset + 9]
                offset += 10
                if packed & 0x80 != 0 { offset += 3 << (Int(packed & 0x07) + 1) }
                // LZW minimum code size, then the data sub-blocks.
                guard let end = skipSubBlocks(bytes, from: offset + 1) else { return result }
                offset = end
                result.frames.append(Frame(end: end, x: x, y: y, width: width, height: height, disposal: disposal,
                                           hasTransparency: hasTransparency))
                disposal = 0
                hasTransparency = false
            default:
                return result
            }
        }
        return result
    }

    /// The offset after the zero-length block ending the sub-blocks at `offset`; `nil` when the
    /// data ends first.
    private static func skipSubBlocks(_ bytes: UnsafeRawBufferPointer, from offset: Int) -> Int? {
        var offset = offset
        while offset < bytes.count {
            let length = Int(bytes[offset])
            if length == 0 { return offset + 1 }
            offset += 1 + length
        }
        return nil
    }
}
