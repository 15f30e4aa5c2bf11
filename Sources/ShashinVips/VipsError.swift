import Foundation
import CVips

/// A libvips call failed; `lines` are what vips wrote into its error buffer for it (possibly none).
struct VipsError: Error {
    let lines: [String]

    init(lines: [String]) {
        self.lines = lines
    }

    init(message: String) {
        lines = [message]
    }

    /// The lines in one sentence, or `noReason` when vips left none.
    var message: String {
        lines.isEmpty ? Self.noReason : lines.joined(separator: "; ")
    }

    /// Fails with this thread's lines of the vips error buffer (see `VipsErrorBuffer.take`).
    static func fromBuffer() -> VipsError {
        VipsError(lines: VipsErrorBuffer.take())
    }

    /// What a failure without a message says: libvips fails silently most often on data that
    /// stops short (a body cut at a lying `Content-Length`) or is damaged.
    static let noReason = "libvips gave no reason: the data is probably truncated or damaged"

    /// This thread's lines of the vips error buffer (see `VipsErrorBuffer.take`) in one sentence.
    static func takeMessage() -> String {
        VipsError(lines: VipsErrorBuffer.take()).message
    }
}
