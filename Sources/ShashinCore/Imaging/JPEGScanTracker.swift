import Foundation

/// Follows a JPEG as its bytes arrive and tells when another scan of a progressive file is
/// complete, so a preview can be decoded from the bytes so far.
///
/// A scan is complete once the first marker after its entropy-coded data has arrived: only then
/// are all of its bytes in. Segments are skipped by their lengths (an EXIF thumbnail's own scan
/// markers are inside one); scan data is read up to the first byte pair that is a marker (`FF 00`
/// is a stuffed byte, `FF D0`–`FF D7` are restart markers). Each byte is looked at once, however
/// the data is split. A baseline (sequential) frame ends the tracking: it has a single scan that
/// gives no preview.
struct JPEGScanTracker {
    /// What the frame header said, once it arrived.
    enum Frame: Equatable { case unknown, progressive, sequential }

    private(set) var frame = Frame.unknown
    /// Complete scans so far.
    private(set) var completedScans = 0
    /// The length of the prefix that holds every complete scan (and nothing of a later one).
    private(set) var completePrefixLength = 0
    /// The data is not a JPEG, or its markers are damaged: no more previews.
    private(set) var isBroken = false
    /// The end-of-image marker arrived: the final decode takes over.
    private(set) var reachedEnd = false

    private enum Position {
        /// At a marker (`FF xx`) between segments.
        case marker(Int)
        /// Inside entropy-coded data, looked through up to here.
        case scanData(Int)
    }

    private var position = Position.marker(2)

    /// Whether more data can still give a preview.
    var isTracking: Bool { !isBroken && !reachedEnd && frame != .sequential }

    /// Looks at the bytes `data` has gained since the last call (`data` holds everything so far);
    /// returns whether another scan was completed.
    mutating func advance(through data: Data) -> Bool {
        guard isTracking else { return false }
        let before = completedScans
        data.withUnsafeBytes { raw in advance(raw.bindMemory(to: UInt8.self)) }
        return completedScans > before
    }

    private mutating func advance(_ bytes: UnsafeBufferPointer<UInt8>) {
        let count = bytes.count
        if count >= 2, bytes[0] != 0xFF || bytes[1] != 0xD8 { isBroken = true; return }
        while isTracking {
            switch position {
            case .scanData(let start):
                var index = start
                var found = false
                while index + 1 < count {
                    if bytes[index] == 0xFF {
                        let next = bytes[index + 1]
                        if next == 0x00 || (0xD0...0xD7).contains(next) || next == 0xFF {
                            index += next == 0xFF ? 1 : 2
                            continue
                        }
                        found = true
                        break
                    }
                    index += 1
                }
                guard found else { position = .scanData(index); return }
                completedScans += 1
                completePrefixLength = index
                position = .marker(index)
            case .marker(let start):
                var index = start
                guard index + 1 < count else { return }
                guard bytes[index] == 0xFF else { isBroken = true; return }
                while index + 1 < count && bytes[index + 1] == 0xFF { index += 1 } // fill bytes
                guard index + 1 < count else { return }
                let marker = bytes[index + 1]
                switch marker {
                case 0xD9, 0xD8, 0x00:
                    // The end (the final decode takes over), or damage: nothing more to preview.
                    if marker == 0xD9 { reachedEnd = true } else { isBroken = true }
                    return
                case 0x01, 0xD0...0xD7:
                    position = .marker(index + 2)
                    continue
                default:
                    guard index + 3 < count else { return }
                    let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
                    guard length >= 2 else { isBroken = true; return }
                    switch marker {
                    case 0xC2, 0xCA: frame = .progressive
                    case 0xC0, 0xC1, 0xC3, 0xC5...0xC7, 0xC9, 0xCB, 0xCD...0xCF: frame = .sequential
                    default: break
                    }
                    let end = index + 2 + length
                    if marker == 0xDA {
                        guard end <= count else { return } // the scan header is not all in yet
                        position = .scanData(end)
                    } else {
                        position = .marker(end)
                        if end > count { return }
                    }
                }
            }
        }
    }
}
