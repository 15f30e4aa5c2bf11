/// Counts the frames of a GIF whose image data is complete in the bytes at hand, walking the
/// block structure (lengths only; no LZW is decoded).
///
/// libvips' GIF loader decodes a frame cut short as if the missing pixels were there, without
/// an error: a cut animation must be loaded only up to its last complete frame, which this finds.
enum GIFFrameScan {
    /// Frames whose image data ends (its zero-length block) within `bytes`, and whether the
    /// walk reached the trailer (0x3B): without it the data was cut or has a block this walk
    /// does not recognise, and frames after the complete ones may be missing.
    struct Result: Equatable {
        var completeFrames: Int
        var isCut: Bool
    }

    static func scan(_ bytes: UnsafeRawBufferPointer) -> Result {
        var result = Result(completeFrames: 0, isCut: true)
        // Header (6) and logical screen descriptor (7), then the global colour table.
        guard bytes.count >= 13 else { return result }
        var offset = 13
        if bytes[10] & 0x80 != 0 { offset += 3 << (Int(bytes[10] & 0x07) + 1) }
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x3B:
                result.isCut = false
                return result
            case 0x21:                                      // extension: label, then sub-blocks
                guard let end = skipSubBlocks(bytes, from: offset + 2) else { return result }
                offset = end
            case 0x2C:                                      // image descriptor
                guard offset + 10 <= bytes.count else { return result }
                let packed = bytes[offset + 9]
                offset += 10
                if packed & 0x80 != 0 { offset += 3 << (Int(packed & 0x07) + 1) }
                // LZW minimum code size, then the data sub-blocks.
                guard let end = skipSubBlocks(bytes, from: offset + 1) else { return result }
                offset = end
                result.completeFrames += 1
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
