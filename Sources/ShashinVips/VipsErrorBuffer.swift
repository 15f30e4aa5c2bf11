import CVips
import Foundation
import ShashinCore

/// Reads libvips' error buffer so that each failing decode gets its own lines.
///
/// The buffer is one per process: a failing call appends lines, and reading it
/// (`vips_error_buffer_copy`) empties it. Read naively, two decodes failing at once take each
/// other's lines or none. Here every read holds one lock, keeps the lines whose domain (the word
/// vips writes before each line: `vipspng`, `VipsJpeg`, `webp2vips`, `gifload`, `heifload`…)
/// names the reading decode's own format, puts back the lines of formats other decodes in flight
/// are reading, and keeps lines naming no format only when no other decode is in flight. Two
/// decodes of the same format failing at the same moment can still share their libvips lines;
/// libpng's words, which libvips 8.14 sends to GLib's log instead, are kept per thread in the
/// C shim (`shashin_warnings_*`) and never cross.
enum VipsErrorBuffer {
    /// The decodes in flight, by format family (`family(of:)`).
    private static let inFlight = Locked<[Int32: Int]>([:])

    /// Sends libvips' warnings to the per-thread record read by `warnings()`, and nowhere else.
    /// Called once, at start-up; it lives here because the shim's per-thread record is one per
    /// calling Swift file (see `shashin_thread_warnings`).
    static func installWarningHandler() {
        shashin_capture_vips_warnings()
    }

    /// Runs `body` as a decode of `format` on this thread: counted in flight, with libvips'
    /// warnings on this thread kept for `warnings()`, and with its lines left in the error buffer
    /// taken away when it ends.
    static func decoding<Result>(_ format: ImageFormat, _ body: () throws(ImagePipelineError) -> Result) throws(ImagePipelineError) -> Result {
        let family = family(of: format)
        inFlight.withLock { $0[family, default: 0] += 1 }
        shashin_warnings_begin(family)
        defer {
            // Lines a decode leaves without failing (libjpeg's warnings on a JPEG that still
            // decodes) would otherwise be read as the reason of this format's next failure.
            _ = take()
            shashin_warnings_end()
            inFlight.withLock { $0[family, default: 1] -= 1 }
        }
        return try body()
    }

    /// libvips' warnings raised on this thread during the current `decoding` call (libpng's
    /// error text among them), each once, without the strip notices vips adds to every failure.
    /// A loader's "read gave N warnings" warning quotes the process's whole error buffer, which
    /// can hold another decode's lines at that moment: a line naming another format's loader is
    /// not this decode's and is left out.
    static func warnings() -> [String] {
        var seen = Set<String>()
        let mine = shashin_warnings_family()
        return String(cString: shashin_warnings_text())
            .split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { line in
                let owner = family(ofLine: line)
                return !line.isEmpty && !line.hasPrefix("error in tile") && (owner == 0 || mine == 0 || owner == mine)
                    && seen.insert(line).inserted
            }
    }

    /// Takes this thread's lines from the vips error buffer (each once), leaving the lines that
    /// belong to other decodes in flight.
    static func take() -> [String] {
        let mine = shashin_warnings_family()
        return inFlight.withLock { inFlight in
            guard let copy = vips_error_buffer_copy() else { return [] }
            defer { g_free(copy) }
            let others = inFlight.values.reduce(0, +) - (mine == 0 ? 0 : 1)
            var kept: [String] = [], putBack: [String] = []
            for line in String(cString: copy).split(whereSeparator: \.isNewline) {
                let line = line.trimmingCharacters(in: .whitespaces)
                guard !line.isEmpty else { continue }
                let owner = family(ofLine: line)
                if owner == mine || (owner == 0 && others == 0) {
                    if !kept.contains(line) { kept.append(line) }
                } else if owner != 0, inFlight[owner, default: 0] > 0 {
                    putBack.append(line)
                } else if mine == 0 {
                    // Not a decode (an encoder or processor): the line is no decode's.
                    if !kept.contains(line) { kept.append(line) }
                }
            }
            for line in putBack { shashin_error_append(line) }
            return kept
        }
    }

    /// A number per libvips loader family: HEIC and AVIF share one loader.
    static func family(of format: ImageFormat) -> Int32 {
        switch format {
        case .jpeg: 1
        case .png: 2
        case .gif: 3
        case .webp: 4
        case .heic, .avif: 5
        case .bmp: 6
        case .tiff: 7
        }
    }

    /// The family whose loader wrote `line`, from its domain, or 0 when the domain names none.
    static func family(ofLine line: String) -> Int32 {
        guard let colon = line.firstIndex(of: ":") else { return 0 }
        let domain = line[..<colon].lowercased()
        let families: [(String, ImageFormat)] = [("png", .png), ("jpeg", .jpeg), ("jpg", .jpeg), ("webp", .webp),
                                                 ("gif", .gif), ("heif", .heic), ("tiff", .tiff)]
        return families.first { domain.contains($0.0) }.map { family(of: $0.1) } ?? 0
    }
}
