import Foundation
import CVips

/// A libvips call failed; `message` is what vips wrote into its error buffer.
struct VipsError: Error {
    let message: String

    /// Fails with the current text of the vips error buffer, which it clears.
    static func fromBuffer() -> VipsError {
        VipsError(message: takeMessage())
    }

    /// What a failure without a message says: libvips fails silently most often on data that
    /// stops short (a body cut at a lying `Content-Length`) or is damaged.
    static let noReason = "libvips failed without a reason: the data is probably truncated or damaged"

    /// Reads and clears the vips error buffer.
    ///
    /// The buffer is global to the process, so with several decodes at once a message can
    /// belong to another call: the text is best-effort, only the failure itself is certain.
    static func takeMessage() -> String {
        guard let copy = vips_error_buffer_copy() else { return Self.noReason }
        defer { g_free(copy) }
        let lines = String(cString: copy)
            .split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        return lines.isEmpty ? Self.noReason : lines.joined(separator: "; ")
    }
}
