/// Compresses 8-bit palette indices as a GIF frame's image data: the LZW minimum code size (8),
/// then codes of 9 to 12 bits in data sub-blocks of at most 255 bytes, then the block
/// terminator. The dictionary starts again (a clear code) when it is full at 4,096 codes.
///
/// A code's width grows exactly when a decoder's does (GIF89a, appendix F): the decoder adds
/// an entry for every code it reads but the first after a clear, one code behind the encoder,
/// and widens its codes once its table reaches the current width's limit.
enum GIFLZWEncoder {
    private static let clear = 256, endOfInformation = 257, firstFree = 258, maxCodes = 4096
    /// A power of two above twice the dictionary's 3,838 entries: probes stay short.
    private static let slots = 8192

    /// `indices` as image data, appended to `output`.
    static func encode(_ indices: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) {
        var codes = BitWriter()
        codes.bytes.reserveCapacity(indices.count / 4 + 16)
        // Keys are `prefix << 8 | index` (at most 20 bits); -1 marks an empty slot.
        var keys = [Int32](repeating: -1, count: slots)
        var values = [UInt16](repeating: 0, count: slots)
        var width = 9, next = firstFree
        codes.write(clear, width: width)
        if var prefix = indices.first.map(Int.init) {
            keys.withUnsafeMutableBufferPointer { keys in
                values.withUnsafeMutableBufferPointer { values in
                    for position in 1..<max(1, indices.count) {
                        let index = Int(indices[position])
                        let key = Int32(prefix << 8 | index)
                        var slot = Int((UInt32(bitPattern: key) &* 2_654_435_761) >> 19) & (slots - 1)
                        var found = false
                        while keys[slot] != -1 {
                            if keys[slot] == key {
                                found = true
                                break
                            }
                            slot = (slot + 1) & (slots - 1)
                        }
                        if found {
                            prefix = Int(values[slot])
                            continue
                        }
                        codes.write(prefix, width: width)
                        if next < maxCodes {
                            keys[slot] = key
                            values[slot] = UInt16(next)
                            next += 1
                            if next > 1 << width, width < 12 { width += 1 }
                        } else {
                            codes.write(clear, width: width)
                            for slot in 0..<slots { keys[slot] = -1 }
                            next = firstFree
                            width = 9
                        }
                        prefix = index
                    }
                }
            }
            codes.write(prefix, width: width)
            // The decoder adds an entry on reading that last code (the encoder never will): the
            // end code is read at the width that entry makes.
            if next < maxCodes, next + 1 > 1 << width, width < 12 { width += 1 }
        }
        codes.write(endOfInformation, width: width)
        codes.flush()

        output.append(8)
        var start = 0
        while start < codes.bytes.count {
            let count = min(255, codes.bytes.count - start)
            output.append(UInt8(count))
            output.append(contentsOf: codes.bytes[start..<start + count])
            start += count
        }
        output.append(0)
    }

    /// Codes packed least significant bit first, as GIF packs them.
    private struct BitWriter {
        var bytes: [UInt8] = []
        private var pending: UInt32 = 0
        private var pendingBits = 0

        mutating func write(_ code: Int, width: Int) {
            pending |= UInt32(code) << pendingBits
            pendingBits += width
            while pendingBits >= 8 {
                bytes.append(UInt8(truncatingIfNeeded: pending))
                pending >>= 8
                pendingBits -= 8
            }
        }

        mutating func flush() {
            if pendingBits > 0 { bytes.append(UInt8(truncatingIfNeeded: pending)) }
            pending = 0
            pendingBits = 0
        }
    }
}
